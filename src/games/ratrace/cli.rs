//! `koth ratrace`: placeholder until the game lands.

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("the ratrace game is not built yet")
}
