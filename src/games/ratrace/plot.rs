//! Population and points of one board over its turns, as an SVG.

use std::path::Path;

use anyhow::anyhow;
use plotters::prelude::*;

use super::cli::BoardRecord;

pub fn board(path: &Path, record: &BoardRecord) -> anyhow::Result<()> {
    let draw = || -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::new(path, (800, 600)).into_drawing_area();
        root.fill(&WHITE)?;
        let (top, bottom) = root.split_vertically(300);
        let last_turn = record.history.last().map_or(1, |s| s.turn.max(1));
        let series: [(&str, &DrawingArea<_, _>, fn(&super::board::Sample) -> u64, RGBColor); 2] = [
            ("population", &top, |s| s.population as u64, BLUE),
            ("points", &bottom, |s| s.points, RED),
        ];
        for (label, area, value, colour) in series {
            let top_value = record.history.iter().map(value).max().unwrap_or(1).max(1);
            let mut chart = ChartBuilder::on(area)
                .caption(
                    format!("board {} (seed {}): {label}", record.board, record.seed),
                    ("sans-serif", 18),
                )
                .margin(10)
                .x_label_area_size(30)
                .y_label_area_size(50)
                .build_cartesian_2d(0u32..last_turn, 0u64..top_value + top_value / 10 + 1)?;
            chart.configure_mesh().x_desc("turn").y_desc(label).draw()?;
            chart.draw_series(LineSeries::new(
                record.history.iter().map(|s| (s.turn, value(s))),
                &colour,
            ))?;
        }
        root.present()?;
        Ok(())
    };
    draw().map_err(|e| anyhow!("cannot draw {}: {e}", path.display()))
}
