//! Population and points of one board over its turns, as an SVG.

use std::path::Path;

use anyhow::anyhow;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::play::BoardRecord;

type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Writes `path`: the board's population (top) and points (bottom) over its turns.
pub(crate) fn board(path: &Path, record: &BoardRecord) -> anyhow::Result<()> {
    let draw = || -> DrawResult {
        let root = SVGBackend::new(path, (800, 600)).into_drawing_area();
        root.fill(&WHITE)?;
        let (top, bottom) = root.split_vertically(300);
        let population: Vec<(u32, u64)> = record
            .history
            .iter()
            .map(|s| (s.turn, s.population as u64))
            .collect();
        let points: Vec<(u32, u64)> = record.history.iter().map(|s| (s.turn, s.points)).collect();
        let title = |what: &str| {
            format!(
                "board {} (seed {}): {what}",
                super::recording::shown_board(record.board),
                record.seed
            )
        };
        line_chart(&top, &title("population"), "population", &population, BLUE)?;
        line_chart(&bottom, &title("points"), "points", &points, RED)?;
        root.present()?;
        Ok(())
    };
    draw().map_err(|e| anyhow!("cannot draw {}: {e}", path.display()))
}

fn line_chart(
    area: &DrawingArea<SVGBackend, Shift>,
    caption: &str,
    label: &str,
    values: &[(u32, u64)],
    colour: RGBColor,
) -> DrawResult {
    let last_turn = values.last().map_or(1, |v| v.0.max(1));
    let top = values.iter().map(|v| v.1).max().unwrap_or(1).max(1);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(0u32..last_turn, 0u64..top + top / 10 + 1)?;
    chart.configure_mesh().x_desc("turn").y_desc(label).draw()?;
    chart.draw_series(LineSeries::new(values.iter().copied(), &colour))?;
    Ok(())
}
