//! The organisers' three cars: every number their physics used and the `proto_car` bots
//! receive, with the types their Python source gave them (Python prints `1` and `1.0`
//! differently, and bots parse what it printed).

use std::sync::LazyLock;

use super::pyjson::Py;

/// Which wheels a car's motors drive, numbered as the organisers' `FR` and `AWD` (their `FF`,
/// front only, is on no car).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Drive {
    Rear = 2,
    Both = 3,
}

/// A number as the organisers' source wrote it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    pub(crate) fn value(self) -> f64 {
        match self {
            Num::Int(n) => n as f64,
            Num::Float(x) => x,
        }
    }

    fn py(self) -> Py {
        match self {
            Num::Int(n) => Py::Int(n),
            Num::Float(x) => Py::Float(x),
        }
    }
}

/// One wheel of a car.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wheel {
    pub(crate) mass: i64,
    pub(crate) radius: i64,
    pub(crate) position: (i64, i64),
    pub(crate) friction: Num,
    pub(crate) elasticity: f64,
    pub(crate) groove_offset: i64,
    pub(crate) damp_position: (i64, i64),
    pub(crate) damp_length: i64,
    pub(crate) damp_stiffness: f64,
    pub(crate) damp_damping: f64,
}

/// The base car's wheel (`Car` in the organisers' `base_car.py`).
const BASE_WHEEL: Wheel = Wheel {
    mass: 60,
    radius: 10,
    position: (0, 0),
    friction: Num::Int(1),
    elasticity: 0.8,
    groove_offset: 5,
    damp_position: (0, 0),
    damp_length: 20,
    damp_stiffness: 6e4,
    damp_damping: 1e3,
};

/// A wheel's keys in `proto_car`, in `Car.proto_dump`'s order.
const REAR_KEYS: [&str; 10] = [
    "rear_wheel_mass",
    "rear_wheel_position",
    "rear_wheel_friction",
    "rear_wheel_elasticity",
    "rear_wheel_joint",
    "rear_wheel_groove_offset",
    "rear_wheel_damp_position",
    "rear_wheel_damp_length",
    "rear_wheel_damp_stiffness",
    "rear_wheel_damp_damping",
];
const FRONT_KEYS: [&str; 10] = [
    "front_wheel_mass",
    "front_wheel_position",
    "front_wheel_friction",
    "front_wheel_elasticity",
    "front_wheel_joint",
    "front_wheel_groove_offset",
    "front_wheel_damp_position",
    "front_wheel_damp_length",
    "front_wheel_damp_stiffness",
    "front_wheel_damp_damping",
];

/// A car as the organisers define it, facing right.
#[derive(Debug)]
pub(crate) struct CarProto {
    pub(crate) name: &'static str,
    pub(crate) external_id: i64,
    pub(crate) body_poly: Vec<(i64, i64)>,
    pub(crate) body_mass: i64,
    pub(crate) body_friction: f64,
    pub(crate) body_elasticity: f64,
    pub(crate) button_position: (i64, i64),
    /// Height and width of the button, as `button_hw`.
    pub(crate) button_hw: (i64, i64),
    pub(crate) button_angle: f64,
    pub(crate) max_speed: i64,
    pub(crate) max_angular_speed: i64,
    pub(crate) torque: i64,
    pub(crate) drive: Drive,
    pub(crate) rear: Wheel,
    pub(crate) front: Wheel,
    /// Box wheels of side 2 × radius instead of discs.
    pub(crate) squared_wheels: bool,
    proto: String,
}

impl CarProto {
    /// The button's four corners, as `Car.get_button_poly`: the first is the position itself
    /// (whole numbers), the others computed in floats.
    pub(crate) fn button_poly(&self) -> [(Num, Num); 4] {
        let (x, y) = self.button_position;
        let (h, w) = (self.button_hw.0 as f64, self.button_hw.1 as f64);
        let (xf, yf) = (x as f64, y as f64);
        let (cos, sin) = (self.button_angle.cos(), self.button_angle.sin());
        [
            (Num::Int(x), Num::Int(y)),
            (
                Num::Float(xf + 0.0 * cos - h * sin),
                Num::Float(yf + 0.0 * sin + h * cos),
            ),
            (
                Num::Float(xf + w * cos - h * sin),
                Num::Float(yf + w * sin + h * cos),
            ),
            (
                Num::Float(xf + w * cos - 0.0 * sin),
                Num::Float(yf + w * sin + 0.0 * cos),
            ),
        ]
    }

    /// `proto_car`, as `json.dumps` wrote `proto_dump()`.
    pub(crate) fn proto_json(&self) -> &str {
        &self.proto
    }

    fn with_proto(mut self) -> CarProto {
        let pair = |(a, b): (i64, i64)| Py::List(vec![Py::Int(a), Py::Int(b)]);
        let wheel = |keys: [&'static str; 10], w: &Wheel| -> Vec<(&'static str, Py)> {
            let values = [
                Py::Int(w.mass),
                pair(w.position),
                w.friction.py(),
                Py::Float(w.elasticity),
                pair((0, 0)),
                Py::Int(w.groove_offset),
                pair(w.damp_position),
                Py::Int(w.damp_length),
                Py::Float(w.damp_stiffness),
                Py::Float(w.damp_damping),
            ];
            keys.into_iter().zip(values).collect()
        };
        let mut entries = vec![
            (
                "car_body_poly",
                Py::List(self.body_poly.iter().map(|&p| pair(p)).collect()),
            ),
            ("rear_wheel_radius", Py::Int(self.rear.radius)),
            ("front_wheel_radius", Py::Int(self.front.radius)),
            (
                "button_poly",
                Py::List(
                    self.button_poly()
                        .iter()
                        .map(|&(x, y)| Py::List(vec![x.py(), y.py()]))
                        .collect(),
                ),
            ),
            ("external_id", Py::Int(self.external_id)),
            ("car_body_mass", Py::Int(self.body_mass)),
            ("car_body_friction", Py::Float(self.body_friction)),
            ("car_body_elasticity", Py::Float(self.body_elasticity)),
            ("max_speed", Py::Int(self.max_speed)),
            ("max_angular_speed", Py::Int(self.max_angular_speed)),
            ("torque", Py::Int(self.torque)),
            ("drive", Py::Int(self.drive as i64)),
        ];
        entries.extend(wheel(REAR_KEYS, &self.rear));
        entries.extend(wheel(FRONT_KEYS, &self.front));
        if self.squared_wheels {
            entries.push(("squared_wheels", Py::Bool(true)));
        }
        self.proto = Py::Dict(entries).to_json();
        self
    }
}

fn buggy() -> CarProto {
    CarProto {
        name: "Buggy",
        external_id: 1,
        body_poly: vec![
            (0, 6),
            (0, 25),
            (33, 42),
            (85, 42),
            (150, 20),
            (150, 0),
            (20, 0),
        ],
        body_mass: 200,
        body_friction: 0.9,
        body_elasticity: 0.5,
        button_position: (40, 42),
        button_hw: (1, 38),
        button_angle: 0.0,
        max_speed: 70,
        max_angular_speed: 2,
        torque: 14_000_000,
        drive: Drive::Rear,
        rear: Wheel {
            mass: 50,
            position: (29, -5),
            damp_position: (29, 20),
            damp_stiffness: 5e4,
            damp_damping: 3e3,
            damp_length: 25,
            radius: 12,
            ..BASE_WHEEL
        },
        front: Wheel {
            mass: 5,
            position: (122, -5),
            damp_position: (122, 20),
            damp_length: 25,
            radius: 12,
            damp_damping: 0.9e3,
            ..BASE_WHEEL
        },
        squared_wheels: false,
        proto: String::new(),
    }
}

static CARS: LazyLock<Vec<CarProto>> = LazyLock::new(|| {
    let bus = CarProto {
        name: "Bus",
        external_id: 2,
        body_poly: vec![
            (0, 6),
            (8, 62),
            (136, 62),
            (153, 32),
            (153, 5),
            (110, 0),
            (23, 0),
        ],
        body_mass: 700,
        body_friction: 0.9,
        body_elasticity: 0.5,
        button_position: (137, 59),
        button_hw: (1, 28),
        button_angle: -(3.0f64 / 1.7).atan(),
        max_speed: 45,
        max_angular_speed: 2,
        torque: 35_000_000,
        drive: Drive::Both,
        rear: Wheel {
            radius: 13,
            position: (38, -5),
            friction: Num::Float(0.9),
            damp_position: (38, 30),
            damp_length: 35,
            damp_stiffness: 10e4,
            damp_damping: 6e3,
            ..BASE_WHEEL
        },
        front: Wheel {
            radius: 13,
            position: (125, -5),
            damp_position: (125, 30),
            damp_length: 35,
            damp_stiffness: 10e4,
            damp_damping: 6e3,
            ..BASE_WHEEL
        },
        squared_wheels: false,
        proto: String::new(),
    };
    let base = buggy();
    let square_wheels = CarProto {
        name: "SquareWheelsBuggy",
        external_id: 3,
        max_speed: 50,
        drive: Drive::Both,
        body_mass: 230,
        rear: Wheel {
            mass: 10,
            damp_stiffness: 10e4,
            damp_damping: 0.9e3,
            ..base.rear
        },
        front: Wheel {
            mass: 10,
            ..base.front
        },
        squared_wheels: true,
        ..base
    };
    vec![
        buggy().with_proto(),
        bus.with_proto(),
        square_wheels.with_proto(),
    ]
});

/// Every car, in the organisers' order.
pub(crate) fn all() -> &'static [CarProto] {
    &CARS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_car_is_the_organisers_to_the_last_digit() {
        let reference: serde_json::Value =
            serde_json::from_str(include_str!("../../../../tests/madcars/protos.json")).unwrap();
        assert_eq!(all().len(), 3);
        for car in all() {
            assert_eq!(
                car.proto_json(),
                reference["cars"][car.name].as_str().unwrap(),
                "{}",
                car.name
            );
        }
    }
}
