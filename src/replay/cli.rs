//! `koth replay PATH [--round R] [--turn T] [--text] [--html OUT.html]`.

use std::path::PathBuf;

use super::Game;

/// Show a recorded paths game: a round or a turn as text, or in a terminal viewer.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A game's log folder, or its graphical_log.txt.
    pub path: PathBuf,
    /// The round to show first (from 0).
    #[arg(long, default_value_t = 0)]
    pub round: u32,
    /// Show the grid after this many turns of the round (needs replay.jsonl); default: its end.
    #[arg(long)]
    pub turn: Option<usize>,
    /// Print the round (or turn) as plain text instead of opening the viewer.
    #[arg(long)]
    pub text: bool,
    /// Write a self-contained web page that animates the game, instead of opening the viewer.
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let game = Game::open(&args.path)?;
    if let Some(out) = &args.html {
        super::html::write(&game, out)?;
        println!("wrote {}", out.display());
        return Ok(());
    }
    let frame = game.frame(args.round, args.turn)?;
    if args.text {
        print!("{}", game.text(&frame));
        return Ok(());
    }
    super::tui::run(&game, frame)
}
