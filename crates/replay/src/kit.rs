//! The viewer kit: what every game's viewers build on, in the game's own folder. A web page is
//! one self-contained file (inline script and style, the game embedded as JSON, no network)
//! made by [`page`]: the game's template with the style, script helpers and speed menu the
//! board pages share, and its data embedded so that no bot's text can end the script, every
//! `seed` written as a string (JavaScript's numbers keep 53 bits of a 64-bit seed). A terminal
//! view is a [`super::tui::View`] shown by [`show`]; a game with no board to draw has
//! [`results_text`], the default text view of its `results.json`, or a
//! [`super::tui::story::Story`] told from its transcripts.

use std::path::Path;

use anyhow::Context;

use super::tui::{self, View};
use koth_game::MatchResult;

/// What the board pages share (paths, rat-race boards, noughts & crosses, flag), written once:
/// the style (`/*SHARED-STYLE*/` in a page), the script's helpers (`/*SHARED-SCRIPT*/`), and the
/// speed menu (`<!--SPEEDS-->`).
const SHARED: [(&str, &str); 3] = [
    ("/*SHARED-STYLE*/", include_str!("viewer_shared.css")),
    ("/*SHARED-SCRIPT*/", include_str!("viewer_shared.js")),
    ("<!--SPEEDS-->", include_str!("viewer_speeds.html")),
];

/// The page `template` with the shared pieces in place of their marks and `data` in place of
/// `placeholder` (`/*GAME*/null`, say), embedded by [`script_json`] with every `seed` as a
/// string ([`seeds_as_strings`]).
pub fn page(template: &str, placeholder: &str, data: impl serde::Serialize) -> String {
    let mut data = serde_json::to_value(data).unwrap_or(serde_json::Value::Null);
    seeds_as_strings(&mut data);
    let page = SHARED
        .iter()
        .fold(template.to_string(), |page, (mark, shared)| {
            page.replace(mark, shared)
        });
    page.replace(placeholder, &script_json(&data))
}

/// Writes every member called `seed` that holds a number as a string, at any depth: a seed needs
/// all 64 bits, and a page's JavaScript would read a number as a double (`…250700` for
/// `…250795`).
pub fn seeds_as_strings(data: &mut serde_json::Value) {
    match data {
        serde_json::Value::Object(members) => {
            for (name, value) in members.iter_mut() {
                if name == "seed" && value.is_number() {
                    *value = serde_json::Value::String(value.to_string());
                } else {
                    seeds_as_strings(value);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(seeds_as_strings),
        _ => {}
    }
}

/// Prints what `viewer` shows (`--text`), or runs it in the terminal.
pub fn show(mut viewer: impl View, text: bool) -> anyhow::Result<()> {
    if text {
        print!("{}", viewer.text());
        Ok(())
    } else {
        tui::run(&mut viewer)
    }
}

/// The default text view of a game's folder, from its `results.json`'s match result: the game
/// and seed, each bot's score, status and faults by kind, and the faults kept with their round,
/// turn and reason. A bot's text is escaped for the terminal.
pub fn results_text(folder: &Path) -> anyhow::Result<String> {
    #[derive(serde::Deserialize)]
    struct Results {
        result: MatchResult,
    }
    let path = folder.join(koth_game::RESULTS_FILE);
    let results: Results = serde_json::from_str(&koth_base::text::read(&path)?)
        .with_context(|| format!("{}: not a match's result", path.display()))?;
    let result = results.result;
    let mut text = format!("{} (seed {})\n", result.game, result.seed);
    for bot in &result.bots {
        text += &format!(
            "{}: {} points, {}, {} faults\n",
            bot.name,
            bot.score,
            bot.status,
            bot.fault_counts.total()
        );
    }
    let numbering = koth_game::Numbering::of(&result.game);
    for fault in result.bots.iter().flat_map(|b| &b.faults) {
        let at = numbering
            .place(fault.round, fault.turn)
            .map_or(String::new(), |place| format!(" ({place})"));
        text += &format!(
            "{}{at}: {}: {}\n",
            fault.bot,
            fault.kind.as_str(),
            fault.reason
        );
    }
    Ok(koth_base::text::shown_lines(&text))
}

/// `data` as JSON to put inside a page's `<script>`: `<`, `>` and `&` written `\u003c`,
/// `\u003e`, `\u0026`, so that nothing a bot wrote (`</script>`, `<!--<script>` in a name or
/// in stderr) can end the script element or change how the browser reads it, and U+2028 and
/// U+2029 escaped as older JavaScript ends a line at them. The same JSON to a parser.
pub fn script_json(data: &serde_json::Value) -> String {
    let json = data.to_string();
    let mut embedded = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                embedded += &format!("\\u{:04x}", u32::from(c));
            }
            c => embedded.push(c),
        }
    }
    embedded
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn embedded_json_cannot_end_its_script_and_parses_the_same() {
        let data = json!({
            "bots": ["<!--<script>", "</script><script>alert(1)</script>", "a & b > c"],
            "stderr": "line\u{2028}separator\u{2029}",
        });
        let embedded = script_json(&data);
        for raw in ['<', '>', '&', '\u{2028}', '\u{2029}'] {
            assert!(!embedded.contains(raw), "{raw:?} in {embedded}");
        }
        assert!(
            embedded.contains("\\u003c!--\\u003cscript\\u003e"),
            "{embedded}"
        );
        let parsed: serde_json::Value = serde_json::from_str(&embedded).unwrap();
        assert_eq!(parsed, data);
    }

    #[test]
    fn a_page_sends_every_seed_as_a_string_with_all_its_digits() {
        let seed = 12_345_678_901_234_250_795u64;
        let data = json!({ "seed": seed, "games": [{ "seed": 7, "seeds": 3 }] });
        let page = page(
            "<script>const GAME = /*GAME*/null;</script>",
            "/*GAME*/null",
            &data,
        );
        assert!(page.contains(&format!("\"seed\":\"{seed}\"")), "{page}");
        assert!(page.contains("\"seed\":\"7\""), "{page}");
        assert!(page.contains("\"seeds\":3"), "{page}");
    }
}
