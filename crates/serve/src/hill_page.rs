//! The hill's pages drawn on the server: the front page and a bot's page carry the king, the
//! tables and the last games in their HTML, so `curl` and a reader with script off see the
//! hill; the pages' script then keeps them live from the same JSON. Each `{{key}}` of the
//! embedded page is replaced by its part, every name and text a bot or its author wrote escaped
//! ([`escape`]), as the script's `text()` escapes it. A contest's page is drawn with the same
//! kit in [`super::contest_page`].

use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};

use koth_hill::board::{HillBoard, Reign};
use koth_hill::contest::View as ContestView;
use koth_hill::records::{BotRecord, HillGame};

/// The hill as its page shows it: drawn here, and sent as JSON to the page's script.
#[derive(Debug, serde::Serialize)]
pub(crate) struct HillView {
    #[serde(flatten)]
    pub(crate) board: HillBoard,
    /// The games done last, newest first.
    pub(crate) last: Vec<HillGame>,
    /// The interpreters and compilers the hill offers its bots, with their versions.
    pub(crate) languages: Vec<koth_bot::languages::Language>,
    /// Its contest, if its file declares one.
    pub(crate) contest: Option<ContestView>,
}

/// `text` safe in HTML, as text or inside an attribute's quotes.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `page` with each `{{key}}` replaced by its value; a key without one is left empty.
pub(crate) fn fill(page: &str, parts: &[(&str, String)]) -> String {
    let mut out =
        String::with_capacity(page.len() + parts.iter().map(|p| p.1.len()).sum::<usize>());
    let mut rest = page;
    while let Some(start) = rest.find("{{") {
        let Some(end) = rest[start..].find("}}") else {
            break;
        };
        out.push_str(&rest[..start]);
        let key = &rest[start + 2..start + end];
        if let Some((_, value)) = parts.iter().find(|(k, _)| *k == key) {
            out.push_str(value);
        }
        rest = &rest[start + end + 2..];
    }
    out.push_str(rest);
    out
}

pub(crate) fn bot_link(name: &str) -> String {
    format!(
        "<a href=\"/bots/{}\">{}</a>",
        utf8_percent_encode(name, NON_ALPHANUMERIC),
        escape(name)
    )
}

pub(crate) fn game_link(index: u32) -> String {
    format!("<a href=\"/games/{index}\">{index}</a>")
}

fn num(x: Option<f64>, digits: usize) -> String {
    x.map_or("–".to_string(), |x| format!("{x:.digits$}"))
}

/// A game's score as its game gave it: a whole number without decimals (`355`, never
/// `355.0`), else to two decimals at most (`0.5`), as the script's `score()` writes it.
pub(crate) fn score(x: f64) -> String {
    format!("{}", (x * 100.0).round() / 100.0 + 0.0)
}

pub(crate) fn interval(low: Option<f64>, high: Option<f64>, digits: usize) -> String {
    match (low, high) {
        (Some(low), Some(high)) => format!("{low:.digits$}–{high:.digits$}"),
        _ => "–".to_string(),
    }
}

fn duration(ms: Option<f64>) -> String {
    match ms {
        None => String::new(),
        Some(ms) if ms < 999.5 => format!("{ms:.0} ms"),
        Some(ms) => format!("{:.1} s", ms / 1000.0),
    }
}

/// Unix seconds as `2026-11-27 12:40 UTC`, as the pages' script writes a time.
fn when(unix: i64) -> String {
    let (days, seconds) = (unix.div_euclid(86_400), unix.rem_euclid(86_400));
    // Howard Hinnant's days-to-civil-date.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        seconds / 3600,
        seconds % 3600 / 60
    )
}

/// A table's rows (cells already HTML, their texts escaped) under `head`; the columns in
/// `left` aligned left, those in `why` wrapped: the script's `table()`.
pub(crate) fn table(head: &[&str], rows: &[Vec<String>], left: &[usize], why: &[usize]) -> String {
    let class = |i: usize| {
        if why.contains(&i) {
            "why"
        } else if left.contains(&i) {
            "name"
        } else {
            ""
        }
    };
    let mut html = String::from("<tr>");
    for (i, h) in head.iter().enumerate() {
        html += &format!("<th class=\"{}\">{}</th>", class(i), escape(h));
    }
    html += "</tr>";
    for row in rows {
        html += "<tr>";
        for (i, cell) in row.iter().enumerate() {
            html += &format!("<td class=\"{}\">{cell}</td>", class(i));
        }
        html += "</tr>";
    }
    html
}

fn fault(text: &str) -> String {
    format!("<span class=\"fault\">{}</span>", escape(text))
}

fn seats(game: &HillGame) -> String {
    let seats: Vec<String> = game
        .seats
        .iter()
        .map(|s| {
            let name = format!("{} v{}", bot_link(&s.name), s.version);
            match (s.score, s.status.as_deref()) {
                (None, _) => name,
                (Some(x), Some("finished") | None) => format!("{name} {}", score(x)),
                (Some(x), Some(status)) => format!("{name} {} {}", score(x), fault(status)),
            }
        })
        .collect();
    seats.join(" · ")
}

fn winner(game: &HillGame) -> String {
    let scores: Option<Vec<f64>> = game.seats.iter().map(|s| s.score).collect();
    let Some(scores) = scores.filter(|s| s.len() >= 2) else {
        return String::new();
    };
    let best = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let top: Vec<_> = game
        .seats
        .iter()
        .filter(|s| s.score == Some(best))
        .collect();
    match top.as_slice() {
        [one] => format!("<b>{}</b>", escape(&one.name)),
        _ => "<span class=\"note\">draw</span>".to_string(),
    }
}

/// The hill's front page (`hill.html`) drawn with `view`, or with `error` where the hill could
/// not be read.
pub(crate) fn front(page: &str, view: Result<&HillView, &str>) -> String {
    let Ok(view) = view else {
        return fill(
            page,
            &[
                ("error", escape(view.err().unwrap_or_default())),
                ("king", "none yet".into()),
                ("games", "0".into()),
                ("history_hidden", "hidden".into()),
                ("title", "koth hill".into()),
            ],
        );
    };
    let board = &view.board;
    let reign = board.kings.last().filter(|_| board.king.is_some());
    let title = format!("Hill {} ({})", board.name, board.game);
    fill(
        page,
        &[
            ("page_title", escape(&format!("koth hill: {}", board.name))),
            ("title", escape(&title)),
            (
                "king",
                match reign {
                    Some(r) => format!("{} v{}", bot_link(&r.name), r.version),
                    None => escape(&board.king_line()),
                },
            ),
            ("statistic", escape(&board.statistic)),
            (
                "king_since",
                reign.map_or(String::new(), |r| king_since(board, r)),
            ),
            ("games", board.games_done.to_string()),
            (
                "contest",
                view.contest.as_ref().map_or(String::new(), contest_line),
            ),
            (
                "contest_phase",
                view.contest
                    .as_ref()
                    .map_or("", |c| c.phase.as_str())
                    .to_string(),
            ),
            (
                "contest_hidden",
                if view.contest.is_some() { "" } else { "hidden" }.to_string(),
            ),
            (
                "waiting",
                board.waiting.as_ref().map_or(String::new(), |waiting| {
                    escape(&format!("The hill {}.", waiting.line()))
                }),
            ),
            (
                "waiting_hidden",
                if board.waiting.is_some() {
                    ""
                } else {
                    "hidden"
                }
                .to_string(),
            ),
            ("leaderboard", leaderboard_table(board)),
            ("last", last_games_table(&view.last)),
            ("kings", kings_table(board)),
            (
                "history_hidden",
                if board.history.is_empty() {
                    "hidden"
                } else {
                    ""
                }
                .into(),
            ),
            ("history", history_table(board)),
        ],
    )
}

/// When the reigning king took the hill, and by how much it leads, if it surely does.
fn king_since(board: &HillBoard, reign: &Reign) -> String {
    let lead = board
        .lead_line()
        .map_or(String::new(), |line| format!("; {line}"));
    escape(&format!(
        "since game {} ({}){lead}",
        reign.since_game,
        when(reign.since)
    ))
}

/// The front page's leaderboard: a row per version in the board's order.
fn leaderboard_table(board: &HillBoard) -> String {
    let points = board.ranking == koth_game::Ranking::Points;
    let digits = if points { 2 } else { 0 };
    let standings: Vec<Vec<String>> = board
        .standings
        .iter()
        .map(|s| {
            vec![
                s.rank.map_or("–".to_string(), |rank| rank.to_string()),
                bot_link(&s.name),
                format!("v{}", s.version),
                num(s.rating, digits),
                interval(s.low, s.high, digits),
                format!("{:.1} ± {:.1}", s.mu, s.sigma),
                s.games.to_string(),
                s.faulted.to_string(),
                escape(&board.state_shown(s)),
            ]
        })
        .collect();
    table(
        &[
            "#",
            "bot",
            "version",
            if points {
                "points/game (adj.)"
            } else {
                "rating"
            },
            "95% interval",
            "online μ ± σ",
            "games",
            "faulted",
            "status",
        ],
        &standings,
        &[1],
        &[8],
    )
}

/// The last games played: their seats and scores, winner, why each was chosen, and time.
fn last_games_table(last: &[HillGame]) -> String {
    let last: Vec<Vec<String>> = last
        .iter()
        .map(|g| {
            vec![
                game_link(g.index),
                seats(g),
                winner(g),
                escape(g.reason.as_deref().unwrap_or_default()),
                duration(g.wall_ms),
            ]
        })
        .collect();
    table(
        &[
            "game",
            "bots and scores",
            "winner",
            "why it was chosen",
            "time",
        ],
        &last,
        &[1, 2],
        // A game of seven lists seven bots: its seats wrap, as the reason does.
        &[1, 3],
    )
}

/// Every king the hill has had, the latest first, each with the games of its reign.
fn kings_table(board: &HillBoard) -> String {
    let kings: Vec<Vec<String>> = board
        .kings
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let until = board.kings.get(i + 1).map_or("now".to_string(), |next| {
                format!("game {} ({})", next.since_game, when(next.since))
            });
            vec![
                format!("{} v{}", bot_link(&k.name), k.version),
                format!("game {} ({})", k.since_game, when(k.since)),
                until,
            ]
        })
        .rev()
        .collect();
    table(&["king", "from", "until"], &kings, &[0, 1, 2], &[])
}

/// The versions no longer scheduled (replaced or retired), with their state.
fn history_table(board: &HillBoard) -> String {
    let history: Vec<Vec<String>> = board
        .history
        .iter()
        .map(|(name, version, state, games)| {
            vec![
                bot_link(name),
                format!("v{version}"),
                escape(state),
                games.to_string(),
            ]
        })
        .collect();
    table(&["bot", "version", "state", "games"], &history, &[0], &[])
}

/// A bot's page (`hill_bot.html`) drawn with its record, or with `error` (a name the hill has
/// not) where there is none.
pub(crate) fn bot(page: &str, name: &str, record: Result<&BotRecord, &str>) -> String {
    let path = format!("/bots/{}", utf8_percent_encode(name, NON_ALPHANUMERIC));
    let Ok(b) = record else {
        return fill(
            page,
            &[
                ("title", escape(name)),
                ("page_title", escape(&format!("koth hill: {name}"))),
                ("error", escape(record.err().unwrap_or_default())),
                ("ratings", format!("{path}/ratings.svg")),
            ],
        );
    };
    let faults = fault_rows(b);
    fill(
        page,
        &[
            ("title", escape(&b.name)),
            ("page_title", escape(&format!("koth hill: {}", b.name))),
            ("ratings", format!("{path}/ratings.svg")),
            ("versions", versions_table(b)),
            ("opponents", opponents_table(b)),
            ("fault_counts", fault_counts(b)),
            (
                "faults_hidden",
                if faults.is_empty() { "hidden" } else { "" }.into(),
            ),
            (
                "faults",
                table(
                    &["game", "version", "kinds", "first fault"],
                    &faults,
                    &[2],
                    &[3],
                ),
            ),
            ("reigns", escape(&reigns(b))),
        ],
    )
}

/// A bot's page's versions, newest first.
fn versions_table(b: &BotRecord) -> String {
    let versions: Vec<Vec<String>> = b
        .versions
        .iter()
        .rev()
        .map(|v| {
            let version = &v.version;
            vec![
                format!("v{}", version.version),
                escape(&v.status),
                when(version.added_at),
                format!(
                    "<code>{}</code>",
                    escape(&version.digest[..version.digest.len().min(12)])
                ),
                version.games.to_string(),
                version.faulted.to_string(),
                num(v.rating, 0),
                interval(v.low, v.high, 0),
                format!("{:.1} ± {:.1}", version.mu, version.sigma),
                version.suspended.as_deref().map_or(String::new(), fault),
            ]
        })
        .collect();
    table(
        &[
            "version",
            "state",
            "added",
            "digest",
            "games",
            "faulted",
            "rating",
            "95% interval",
            "online μ ± σ",
            "suspended",
        ],
        &versions,
        &[1, 3],
        &[9],
    )
}

/// A bot's page's record against each opponent.
fn opponents_table(b: &BotRecord) -> String {
    let opponents: Vec<Vec<String>> = b
        .opponents
        .iter()
        .map(|o| {
            let score =
                100.0 * (f64::from(o.wins) + f64::from(o.draws) / 2.0) / f64::from(o.games.max(1));
            vec![
                bot_link(&o.name),
                o.games.to_string(),
                o.wins.to_string(),
                o.draws.to_string(),
                o.losses.to_string(),
                format!("{score:.0}%"),
            ]
        })
        .collect();
    table(
        &["opponent", "games", "won", "drawn", "lost", "score"],
        &opponents,
        &[0],
        &[],
    )
}

/// How many of a bot's games had each kind of fault.
fn fault_counts(b: &BotRecord) -> String {
    let f = &b.faults;
    format!(
        "Games with a fault: {} timed_out, {} crashed, {} bad_output, {} failed_to_start{}",
        f.timed_out,
        f.crashed,
        f.bad_output,
        f.failed_to_start,
        if f.latest.is_empty() {
            "."
        } else {
            "; the latest:"
        }
    )
}

/// A bot's latest faulted games, each with its first fault.
fn fault_rows(b: &BotRecord) -> Vec<Vec<String>> {
    b.faults
        .latest
        .iter()
        .map(|g| {
            vec![
                game_link(g.game),
                format!("v{}", g.version),
                escape(&g.kinds.join(", ")),
                escape(g.reason.as_deref().unwrap_or_default()),
            ]
        })
        .collect()
}

/// A bot's reigns as king, in words.
fn reigns(b: &BotRecord) -> String {
    if b.reigns.is_empty() {
        return "Never king.".to_string();
    }
    let reigns: Vec<String> = b
        .reigns
        .iter()
        .map(|r| {
            let until = match (r.until_game, r.until) {
                (Some(game), Some(at)) => format!("until game {game} ({})", when(at)),
                _ => "until now".to_string(),
            };
            format!(
                "v{} from game {} ({}) {until}",
                r.version,
                r.since_game,
                when(r.since)
            )
        })
        .collect();
    reigns.join("; ")
}

/// The front page's line of a contest: its phase, its close (with a countdown the page's
/// script keeps), the manifest's digest, and a link to its page.
pub(crate) fn contest_line(contest: &ContestView) -> String {
    let close = match contest.closes_in_s {
        Some(left) => format!(
            "closes at {} (in <span id=\"countdown\" data-left=\"{left}\">{left} s</span>)",
            escape(&contest.closes)
        ),
        None => format!("closed at {}", escape(&contest.closes)),
    };
    let manifest = contest
        .manifest_sha256
        .as_ref()
        .map_or(String::new(), |sha| {
            format!(
                " · <a href=\"/api/contest/manifest\">manifest</a> SHA-256 <code>{}</code>",
                escape(sha)
            )
        });
    format!(
        "<b>Contest: {}</b> · {close}{manifest} · <a href=\"/contest\">the contest</a>",
        contest.phase.as_str()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_reads_as_the_script_writes_it() {
        assert_eq!(when(0), "1970-01-01 00:00 UTC");
        assert_eq!(when(1_795_005_600), "2026-11-18 12:40 UTC");
        assert_eq!(when(951_782_400), "2000-02-29 00:00 UTC");
    }

    #[test]
    fn a_score_is_a_whole_number_where_it_is_one() {
        let shown: Vec<String> = [355.0, 0.5, 1.0 / 3.0, -0.0, 2.0].map(score).to_vec();
        assert_eq!(shown, ["355", "0.5", "0.33", "0", "2"]);
    }

    #[test]
    fn a_page_is_filled_with_its_parts_and_names_are_escaped() {
        let page = "<h1>{{title}}</h1><p {{hidden}}>{{missing}}</p>";
        let filled = fill(
            page,
            &[("title", escape("<b>&\"x'")), ("hidden", "hidden".into())],
        );
        assert_eq!(filled, "<h1>&lt;b&gt;&amp;&quot;x&#39;</h1><p hidden></p>");
        assert_eq!(
            bot_link("a b/<c>"),
            "<a href=\"/bots/a%20b%2F%3Cc%3E\">a b/&lt;c&gt;</a>"
        );
    }
}
