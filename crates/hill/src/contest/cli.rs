//! `koth contest status|close|export|verify`: a hill's contest from the command line.

use std::path::PathBuf;

use clap::Subcommand;

use super::{Phase, View};
use crate::cli::HillTarget;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Where the contest of a hill is (open, frozen, final, published), its close and its
    /// countdown, the manifest's SHA-256, the final's progress and its table once published.
    Status {
        #[command(flatten)]
        hill: HillTarget,
    },
    /// Close the contest now, before its `closes`: uploads and new versions are refused from
    /// now on, and `hill run` freezes the field and plays the final.
    Close {
        #[command(flatten)]
        hill: HillTarget,
    },
    /// Pack the published final (the manifest, every final game's seed, seats, scores and
    /// files, the table with its intervals and matrix) into a .tar.gz anyone can verify.
    Export {
        #[command(flatten)]
        hill: HillTarget,
        /// The file to write (a .tar.gz).
        #[arg(long, value_name = "FILE")]
        to: PathBuf,
    },
    /// Check an exported final: every file's digest, every game's seed and scores, and the
    /// table recomputed from the games bit for bit; exit non-zero on any difference.
    Verify {
        /// The exported .tar.gz.
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
}

pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Command::Status { hill } => {
            let hill = hill.open(None)?;
            match super::view(&hill.store, &hill.dir)? {
                Some(view) => print!("{}", status(&hill.name, &view)),
                None => println!(
                    "the hill {} has no contest: its hill file has no [contest] table",
                    hill.name
                ),
            }
            Ok(())
        }
        Command::Close { hill } => {
            let hill = hill.open(None)?;
            let at = super::close_now(hill.config.contest.as_ref(), &hill.store)?;
            println!(
                "the contest of {} is closed at {}: uploads and new versions are refused; \
                 `koth hill run` freezes the field and plays the final",
                hill.name,
                super::rfc3339(at)
            );
            Ok(())
        }
        Command::Export { hill, to } => {
            let hill = hill.open(None)?;
            let games = super::export::export(&hill, &to)?;
            println!(
                "{}: the final's {games} games, its manifest and its table",
                to.display()
            );
            Ok(())
        }
        Command::Verify { file } => {
            let verified = super::export::verify(&file)?;
            println!(
                "{}: verified: manifest SHA-256 {}; {} games and {} files checked; the table \
                 recomputed from the games is the published one, bit for bit",
                file.display(),
                verified.manifest_sha256,
                verified.games,
                verified.files
            );
            print!("{}", super::render(&verified.result));
            Ok(())
        }
    }
}

/// `koth contest status`'s text.
fn status(hill: &str, view: &View) -> String {
    let mut out = format!("Contest of the hill {hill}: {}\n", view.phase.as_str());
    match view.closes_in_s {
        Some(left) => out.push_str(&format!(
            "  closes at {} (in {})\n",
            view.closes,
            countdown(left)
        )),
        None => out.push_str(&format!(
            "  closed at {}{}\n",
            view.closes,
            if view.closed_by_hand {
                " (by hand)"
            } else {
                ""
            }
        )),
    }
    out.push_str(&format!(
        "  the final: the first {} at the close, at most {} games\n",
        view.finalists, view.budget
    ));
    if let Some(sha) = &view.manifest_sha256 {
        out.push_str(&format!("  manifest SHA-256 {sha}\n"));
        out.push_str(&format!("  finalists: {}\n", view.field.join(", ")));
    }
    if view.phase == Phase::Final {
        out.push_str(&format!(
            "  round {}: {} games scored, {} to play\n",
            view.rounds, view.final_games_done, view.final_games_left
        ));
    }
    if let Some(result) = &view.result {
        out.push_str(&format!(
            "  published: {}; {} games scored, {} played again after a harness fault\n",
            result.stopped, result.games, result.replayed
        ));
        out.push_str(&super::render(result));
    }
    out
}

/// Seconds left as a person reads them.
fn countdown(seconds: i64) -> String {
    let (d, h, m, s) = (
        seconds / 86_400,
        seconds / 3600 % 24,
        seconds / 60 % 60,
        seconds % 60,
    );
    match (d, h, m) {
        (0, 0, 0) => format!("{s} s"),
        (0, 0, _) => format!("{m} min {s} s"),
        (0, _, _) => format!("{h} h {m} min"),
        _ => format!("{d} d {h} h"),
    }
}
