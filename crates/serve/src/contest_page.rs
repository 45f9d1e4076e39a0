//! A contest's page (`contest.html`), drawn on the server as the hill's front page is
//! ([`super::hill_page`], whose kit it uses): its phase and close, the frozen field with its
//! digests, the final's progress, and once published its table, the matrix of every pair and
//! its games.

use koth_hill::contest::{FinalResult, Manifest, View as ContestView};

use super::hill_page::{bot_link, contest_line, escape, fill, game_link, interval, score, table};

/// The contest's page (`contest.html`): its phase and close, the frozen field with its
/// digests, the final's progress, and once published its table (places, ties, intervals),
/// the matrix of every pair and its games.
pub(crate) fn contest(
    page: &str,
    contest: Result<(&ContestView, Option<&Manifest>), &str>,
) -> String {
    let (contest, manifest) = match contest {
        Ok(found) => found,
        Err(why) => return fill(page, &[("error", escape(why)), ("title", "Contest".into())]),
    };
    let mut parts = vec![
        (
            "title",
            escape(&format!("Contest: {}", contest.phase.as_str())),
        ),
        ("line", contest_line(contest)),
        ("field", field_table(manifest)),
        (
            "progress",
            escape(&format!(
                "The final: the first {} at the close, in whole balanced rounds, at most {} games. \
                 Round {}: {} games scored, {} to play.",
                contest.finalists,
                contest.budget,
                contest.rounds,
                contest.final_games_done,
                contest.final_games_left
            )),
        ),
    ];
    match &contest.result {
        Some(result) => {
            // Points to two decimals, an Elo-scale rating whole, as the hill's table shows them.
            let digits = if manifest.is_some_and(|m| m.ranking == "points") {
                2
            } else {
                0
            };
            parts.extend(published_parts(result, digits));
        }
        None => parts.push(("published_hidden", "hidden".into())),
    }
    fill(page, &parts)
}

/// The field frozen at the close: each finalist with its interval then, its games and the
/// first 16 hex digits of its source's and its build's digests.
fn field_table(manifest: Option<&Manifest>) -> String {
    let field: Vec<Vec<String>> = manifest.map_or(Vec::new(), |m| {
        m.finalists
            .iter()
            .enumerate()
            .map(|(i, f)| {
                vec![
                    (i + 1).to_string(),
                    format!("{} v{}", bot_link(&f.name), f.version),
                    interval(f.low, f.high, 2),
                    f.games.to_string(),
                    format!(
                        "<code>{}</code>",
                        escape(&f.source_digest[..f.source_digest.len().min(16)])
                    ),
                    format!(
                        "<code>{}</code>",
                        escape(&f.built_digest[..f.built_digest.len().min(16)])
                    ),
                ]
            })
            .collect()
    });
    table(
        &[
            "at the close",
            "finalist",
            "95% interval then",
            "games",
            "source SHA-256",
            "built SHA-256",
        ],
        &field,
        &[1],
        &[],
    )
}

/// The parts of a published result: why the final stopped, its table, the matrix of every
/// pair and its games.
fn published_parts(result: &FinalResult, digits: usize) -> Vec<(&'static str, String)> {
    vec![
        (
            "stopped",
            escape(&format!(
                "Published: it stopped on {}. {} games scored in {} round(s); {} attempts \
                 failed by the harness were played again, never scored.",
                result.stopped, result.games, result.rounds, result.replayed
            )),
        ),
        ("final", final_table(result, digits)),
        ("matrix_is", escape(&result.table.matrix_is)),
        ("matrix", matrix_table(result)),
        ("games", final_games_table(result)),
        ("published_hidden", String::new()),
    ]
}

/// The name of finalist `f` in a published result.
fn finalist_name(result: &FinalResult, f: usize) -> &str {
    result.finalists.get(f).map_or("?", String::as_str)
}

/// The final's table: places (ties shared), figures with their intervals, games, and each
/// line's lead over the next with whether their intervals are apart.
fn final_table(result: &FinalResult, digits: usize) -> String {
    let lines: Vec<Vec<String>> = result
        .table
        .lines
        .iter()
        .map(|l| {
            vec![
                l.place.to_string(),
                escape(finalist_name(result, l.finalist)),
                format!("{:.digits$} ± {:.digits$}", l.value, l.interval),
                l.games.to_string(),
                match (l.lead, l.apart_from_next) {
                    (Some(lead), Some(apart)) => format!(
                        "{lead:.digits$}, {}",
                        if apart {
                            "intervals apart"
                        } else {
                            "<b>tied</b>: intervals overlap"
                        }
                    ),
                    _ => String::new(),
                },
            ]
        })
        .collect();
    table(
        &[
            "place",
            "finalist",
            "figure ± 95%",
            "games",
            "lead over the next",
        ],
        &lines,
        &[1],
        &[],
    )
}

/// Every pair of finalists, in the table's order: the row's figure against the column.
fn matrix_table(result: &FinalResult) -> String {
    let order: Vec<usize> = result.table.lines.iter().map(|l| l.finalist).collect();
    let head: Vec<String> = std::iter::once(String::new())
        .chain(order.iter().map(|&f| finalist_name(result, f).to_string()))
        .collect();
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    let matrix: Vec<Vec<String>> = order
        .iter()
        .map(|&row| {
            std::iter::once(escape(finalist_name(result, row)))
                .chain(order.iter().map(|&col| {
                    if row == col {
                        "–".to_string()
                    } else {
                        format!("{:.2}", result.table.matrix[row][col])
                    }
                }))
                .collect()
        })
        .collect();
    table(&head, &matrix, &[0], &[])
}

/// The final's games: round, table, and each finalist's score.
fn final_games_table(result: &FinalResult) -> String {
    let games: Vec<Vec<String>> = result
        .final_games
        .iter()
        .map(|g| {
            vec![
                game_link(g.index),
                g.round.to_string(),
                (g.table + 1).to_string(),
                g.outcomes
                    .iter()
                    .map(|o| {
                        format!(
                            "{} {}",
                            escape(finalist_name(result, o.finalist)),
                            score(o.score)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(" · "),
            ]
        })
        .collect();
    table(
        &["game", "round", "table", "finalists and scores"],
        &games,
        &[3],
        &[],
    )
}
