//! The organisers' six maps: a 1200 × 800 box of border sensors, and segments 10 thick — the
//! straight ones as given, each arc cut into straight pieces with their arithmetic, in their
//! order, so that the physics and the `proto_map` bots receive are theirs to the last bit.

use std::f64::consts::PI;
use std::sync::LazyLock;

use super::pyjson::Py;

pub(crate) const WIDTH: f64 = 1200.0;
pub(crate) const HEIGHT: f64 = 800.0;
/// Every segment's radius, the borders' too.
pub(crate) const SEGMENT_HEIGHT: f64 = 10.0;
pub(crate) const SEGMENT_FRICTION: f64 = 1.0;
pub(crate) const SEGMENT_ELASTICITY: f64 = 0.0;

/// A point as the organisers' source wrote it: whole numbers for straight segments, floats for
/// the pieces of arcs (Python prints them differently).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Point {
    Int(i64, i64),
    Float(f64, f64),
}

impl Point {
    pub(crate) fn xy(self) -> (f64, f64) {
        match self {
            Point::Int(x, y) => (x as f64, y as f64),
            Point::Float(x, y) => (x, y),
        }
    }

    fn py(self) -> Py {
        match self {
            Point::Int(x, y) => Py::List(vec![Py::Int(x), Py::Int(y)]),
            Point::Float(x, y) => Py::List(vec![Py::Float(x), Py::Float(y)]),
        }
    }
}

/// A straight segment as the organisers wrote it: two points of whole numbers.
type Straight = ((i64, i64), (i64, i64));

/// An arc: centre, radius, start and end angle, pieces.
struct Arc((i64, i64), i64, f64, f64, u32);

/// A map as the organisers define it.
#[derive(Debug)]
pub(crate) struct MapProto {
    pub(crate) name: &'static str,
    /// Straight segments first, then the pieces of each arc, as `proto_map` lists them.
    pub(crate) segments: Vec<(Point, Point)>,
    /// `proto_map` as bots receive it.
    proto: String,
}

impl MapProto {
    fn new(name: &'static str, external_id: i64, straight: &[Straight], arcs: &[Arc]) -> MapProto {
        let mut segments: Vec<(Point, Point)> = straight
            .iter()
            .map(|&((x1, y1), (x2, y2))| (Point::Int(x1, y1), Point::Int(x2, y2)))
            .collect();
        for &Arc((cx, cy), r, a, b, pieces) in arcs {
            // As `Map._get_segments_points`: the angle of piece i is a + (b − a)/n · i.
            let per_piece = (b - a) / pieces as f64;
            let at = |angle: f64| {
                Point::Float(
                    cx as f64 + r as f64 * angle.cos(),
                    cy as f64 + r as f64 * angle.sin(),
                )
            };
            for i in 0..pieces {
                let first = a + per_piece * i as f64;
                let second = a + per_piece * (i + 1) as f64;
                segments.push((at(first), at(second)));
            }
        }
        let proto = Py::Dict(vec![
            ("external_id", Py::Int(external_id)),
            (
                "segments",
                Py::List(
                    segments
                        .iter()
                        .map(|(p, q)| {
                            Py::List(vec![p.py(), q.py(), Py::Int(SEGMENT_HEIGHT as i64)])
                        })
                        .collect(),
                ),
            ),
        ])
        .to_json();
        MapProto {
            name,
            segments,
            proto,
        }
    }

    /// `proto_map`, as `json.dumps` wrote it.
    pub(crate) fn proto_json(&self) -> &str {
        &self.proto
    }
}

/// The borders, in the order added (left, top, right, bottom): sensors just outside the box.
pub(crate) fn borders() -> [((f64, f64), (f64, f64)); 4] {
    let bo = SEGMENT_HEIGHT - 1.0;
    [
        ((-bo, -bo), (-bo, HEIGHT + bo)),
        ((-bo, HEIGHT + bo), (WIDTH + bo, HEIGHT + bo)),
        ((WIDTH + bo, HEIGHT + bo), (WIDTH + bo, -bo)),
        ((WIDTH + bo, -bo), (-bo, -bo)),
    ]
}

/// The pill's two half circles and its floor and ceiling, which four maps share.
fn pill_arcs() -> [Arc; 2] {
    [
        Arc((300, 400), 300, PI / 2.0, PI * 3.0 / 2.0, 30),
        Arc((900, 400), 300, PI / 2.0, -PI / 2.0, 30),
    ]
}

const PILL_SEGMENTS: [Straight; 2] = [((300, 100), (900, 100)), ((300, 700), (900, 700))];

static MAPS: LazyLock<Vec<MapProto>> = LazyLock::new(|| {
    let pill = |extra_straight: &[Straight], extra_arcs: Vec<Arc>| {
        let straight: Vec<_> = PILL_SEGMENTS
            .iter()
            .chain(extra_straight)
            .copied()
            .collect();
        let mut arcs = pill_arcs().into_iter().collect::<Vec<_>>();
        arcs.extend(extra_arcs);
        (straight, arcs)
    };
    let (s1, a1) = pill(&[], Vec::new());
    let (s2, a2) = pill(&[], vec![Arc((600, -150), 300, PI / 3.2, PI / 1.45, 30)]);
    let (s3, a3) = pill(
        &[((465, 195), (735, 195))],
        vec![
            Arc((300, 300), 200, -PI / 2.0, -PI / 6.0, 30),
            Arc((900, 300), 200, PI * 3.0 / 2.0, PI * 7.0 / 6.0, 30),
        ],
    );
    let (s4, a4) = pill(&[((300, 400), (900, 400))], Vec::new());
    vec![
        MapProto::new("PillMap", 1, &s1, &a1),
        MapProto::new("PillHubbleMap", 2, &s2, &a2),
        MapProto::new("PillHillMap", 3, &s3, &a3),
        MapProto::new("PillCarcassMap", 4, &s4, &a4),
        MapProto::new("IslandMap", 5, &[((100, 100), (1100, 100))], &[]),
        MapProto::new(
            "IslandHoleMap",
            6,
            &[
                ((10, 400), (50, 200)),
                ((50, 200), (300, 200)),
                ((380, 150), (820, 150)),
                ((900, 200), (1150, 200)),
                ((1150, 200), (1190, 400)),
            ],
            &[
                Arc((300, 100), 100, PI / 6.0, PI / 2.0, 30),
                Arc((900, 100), 100, PI / 2.0, PI * 5.0 / 6.0, 30),
            ],
        ),
    ]
});

/// Every map, in the organisers' order.
pub(crate) fn all() -> &'static [MapProto] {
    &MAPS
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `proto_map` and `proto_car` as the organisers' own code prints them
    /// (`scripts/madcars-reference.py`).
    fn reference() -> serde_json::Value {
        serde_json::from_str(include_str!("../../../../tests/madcars/protos.json")).unwrap()
    }

    #[test]
    fn every_map_is_the_organisers_to_the_last_digit() {
        let reference = reference();
        assert_eq!(all().len(), 6);
        for map in all() {
            assert_eq!(
                map.proto_json(),
                reference["maps"][map.name].as_str().unwrap(),
                "{}",
                map.name
            );
        }
    }
}
