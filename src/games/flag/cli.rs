//! `koth flag`: placeholder until the game lands.

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("the flag game is not built yet")
}
