//! `koth paths`: placeholder until the game lands.

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("the paths game is not built yet")
}
