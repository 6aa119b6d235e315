//! `blitty bench` arguments and entry point.

#[derive(clap::Args)]
pub struct BenchArgs {}

pub fn run(_args: BenchArgs) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    Err("blitty bench is not built yet".into())
}
