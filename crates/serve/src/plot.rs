//! The dashboard's plots, drawn as SVG by plotters.

use anyhow::anyhow;
use plotters::prelude::*;
use skillratings::weng_lin::WengLinRating;

use koth_game::RoundPoints;

/// Colours for the bots' lines, in turn.
const COLOURS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

/// Each bot's points summed over the rounds of a paths game, a line per bot: where a bot took
/// the lead, and where it fell behind.
pub(crate) fn points_by_round(log: &RoundPoints) -> anyhow::Result<String> {
    let mut svg = String::new();
    draw_points(&mut svg, log).map_err(|e| anyhow!("cannot draw the points: {e}"))?;
    Ok(svg)
}

fn draw_points(svg: &mut String, log: &RoundPoints) -> Result<(), Box<dyn std::error::Error>> {
    let rounds = log.rounds.len().max(1);
    let mut totals = vec![vec![0.0]; log.bots.len()];
    for round in &log.rounds {
        for (bot, points) in round.iter().enumerate() {
            if let Some(line) = totals.get_mut(bot) {
                line.push(line.last().copied().unwrap_or(0.0) + points);
            }
        }
    }
    let top = totals.iter().flatten().copied().fold(1.0, f64::max);
    {
        let root = SVGBackend::with_string(svg, (900, 420)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption("points so far, round by round", ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(60)
            .build_cartesian_2d(0..rounds, 0.0..top * 1.1)?;
        chart
            .configure_mesh()
            .x_desc("round")
            .y_desc("points")
            .draw()?;
        for (bot, line) in totals.iter().enumerate() {
            let colour = COLOURS[bot % COLOURS.len()];
            named_line(
                &mut chart,
                line.iter().enumerate().map(|(r, &p)| (r, p)),
                colour,
                &log.bots[bot],
            )?;
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
        root.present()?;
    }
    Ok(())
}

/// A point of a rating line: (x, rating, σ).
type Point = (u32, f64, f64);

/// Each bot's rating over its games as a line, with its ± σ band shaded: a rating whose band
/// still narrows is not settled yet.
pub(crate) fn ratings(names: &[String], history: &[Vec<WengLinRating>]) -> anyhow::Result<String> {
    let lines: Vec<(&str, Vec<Point>)> = history
        .iter()
        .enumerate()
        .map(|(bot, ratings)| {
            let points = ratings
                .iter()
                .enumerate()
                .map(|(g, r)| (g as u32 + 1, r.rating, r.uncertainty))
                .collect();
            (names.get(bot).map_or("", String::as_str), points)
        })
        .collect();
    let lines: Vec<(&str, &[Point])> = lines
        .iter()
        .map(|(name, points)| (*name, &points[..]))
        .collect();
    banded(
        &lines,
        "rating ± σ over each bot's games",
        "games played",
        "Weng-Lin rating",
    )
}

/// A hill bot's figure over time on its table's scale (`figure`, the table's column: points
/// per game, or an Elo-scale rating), a line per version (`v1`, `v2`…) over the hill's game
/// numbers, so a new version is seen taking over from the last: each line is (name, [(game,
/// figure, half-width of its 95% interval)]).
pub(crate) fn hill_ratings(lines: &[(String, Vec<Point>)], figure: &str) -> anyhow::Result<String> {
    let lines: Vec<(&str, &[Point])> = lines
        .iter()
        .map(|(name, points)| (name.as_str(), &points[..]))
        .collect();
    banded(
        &lines,
        &format!("{figure} and its 95% interval over the hill's games"),
        "the hill's game",
        figure,
    )
}

/// Lines of (x, value, half-width), each with its band shaded, captioned `caption`.
fn banded(
    lines: &[(&str, &[Point])],
    caption: &str,
    x_desc: &str,
    y_desc: &str,
) -> anyhow::Result<String> {
    let mut svg = String::new();
    draw_bands(&mut svg, lines, [caption, x_desc, y_desc])
        .map_err(|e| anyhow!("cannot draw the ratings: {e}"))?;
    Ok(svg)
}

fn draw_bands(
    svg: &mut String,
    lines: &[(&str, &[Point])],
    [caption, x_desc, y_desc]: [&str; 3],
) -> Result<(), Box<dyn std::error::Error>> {
    let points = || lines.iter().flat_map(|(_, points)| points.iter());
    let first = points().map(|p| p.0).min().unwrap_or(1).saturating_sub(1);
    let last = points().map(|p| p.0).max().unwrap_or(0).max(first + 1);
    let (low, high) = points().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), p| {
        (l.min(p.1 - p.2), h.max(p.1 + p.2))
    });
    let (low, high) = if low.is_finite() {
        (low.floor(), high.ceil().max(low.floor() + 1.0))
    } else {
        (0.0, 50.0)
    };
    {
        let root = SVGBackend::with_string(svg, (900, 420)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(caption, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(first..last, low..high)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .draw()?;
        for (k, (name, points)) in lines.iter().enumerate().filter(|(_, l)| !l.1.is_empty()) {
            let colour = COLOURS[k % COLOURS.len()];
            let upper = points.iter().map(|&(x, r, s)| (x, r + s));
            let lower = points.iter().rev().map(|&(x, r, s)| (x, r - s));
            chart.draw_series(std::iter::once(Polygon::new(
                upper.chain(lower).collect::<Vec<_>>(),
                colour.mix(0.15).filled(),
            )))?;
            named_line(
                &mut chart,
                points.iter().map(|&(x, r, _)| (x, r)),
                colour,
                name,
            )?;
        }
        legend(&mut chart, SeriesLabelPosition::LowerRight)?;
        root.present()?;
    }
    Ok(())
}

type Chart<'a, X, Y> = ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>;

/// A bot's line, named in the legend by a stroke of its colour.
fn named_line<X: Ranged, Y: Ranged>(
    chart: &mut Chart<'_, X, Y>,
    points: impl Iterator<Item = (X::ValueType, Y::ValueType)>,
    colour: RGBColor,
    name: &str,
) -> Result<(), Box<dyn std::error::Error>>
where
    X::ValueType: Clone + 'static,
    Y::ValueType: Clone + 'static,
{
    chart
        .draw_series(LineSeries::new(points, colour.stroke_width(2)))
        .map_err(|e| e.to_string())?
        .label(name)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
    Ok(())
}

/// The legend of the bots' lines, at `position`.
fn legend<X: Ranged, Y: Ranged>(
    chart: &mut Chart<'_, X, Y>,
    position: SeriesLabelPosition,
) -> Result<(), Box<dyn std::error::Error>> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(position)
        .draw()
        .map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game whose rounds share their points draws them as they are, halves included.
    #[test]
    fn fractional_points_are_plotted_as_they_are() {
        let log = RoundPoints {
            bots: vec!["Half".into(), "Whole".into()],
            rounds: vec![vec![0.5, 0.0], vec![0.25, 0.0]],
        };
        let svg = points_by_round(&log).unwrap();
        // The y axis reaches just past the largest total, 0.75, in labels of tenths, not whole
        // points.
        let texts: Vec<&str> = svg.split(['<', '>']).map(str::trim).collect();
        assert!(texts.contains(&"0.6") && texts.contains(&"Half"), "{svg}");
    }
}
