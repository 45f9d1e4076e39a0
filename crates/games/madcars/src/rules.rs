//! One match of Mad Cars: a space built as the organisers' server built it — the same bodies,
//! shapes and joints, added in the same order, which decides Chipmunk's contact order and so who
//! loses — the cars driven by commands, the deadline rising from the floor, a death when a
//! car's button begins to touch anything, and the rest ticks that follow it.
//!
//! No processes and no I/O here: `play.rs` asks the bots and calls [`Match::drive`].

use super::cars::{CarProto, Drive};
use super::maps::{self, MapProto};
use super::physics::{
    BodyId, ConstraintId, ShapeId, Space, Vect, moment_for_box, moment_for_circle, moment_for_poly,
    vect,
};
use super::protocol::{CarState, Command};

/// Time per step, as the organisers' server stepped.
pub(crate) const STEP: f64 = 0.016;
/// Ticks of a match after a death, before it ends; no messages go out meanwhile.
pub(crate) const REST_TICKS: u32 = 90;
/// Ticks of a match before the deadline starts to rise.
pub(crate) const TICKS_TO_DEADLINE: u32 = 600;
/// How far the deadline rises per tick once it moves.
pub(crate) const DEADLINE_STEP: f64 = 0.5;
/// Ticks after which the organisers' server stopped a game without a result.
pub(crate) const MAX_TICKS: u32 = 20_000;
const GRAVITY: Vect = vect(0.0, -700.0);
const DAMPING: f64 = 0.85;
/// Where each player's car starts: its body's origin.
const SPAWN: [(f64, f64); 2] = [(300.0, 300.0), (900.0, 300.0)];
const DEADLINE_START: f64 = 10.0;
const DEADLINE_HEIGHT: f64 = 20.0;

/// A car in a match.
struct Car {
    /// Its shapes' group (1 or 2): they never collide with each other.
    group: usize,
    /// 1 for the car facing right, −1 for the mirrored one.
    direction: i8,
    body: BodyId,
    rear: BodyId,
    front: BodyId,
    rear_radius: f64,
    front_radius: f64,
    motors: Vec<ConstraintId>,
    max_speed: f64,
    torque: f64,
}

impl Car {
    /// The button's collision type, as the organisers numbered it.
    fn button_type(group: usize) -> usize {
        group * 10
    }
}

/// One match: its space, its two cars, the deadline and the rest ticks.
pub(crate) struct Match {
    space: Space,
    cars: [Car; 2],
    deadline: BodyId,
    ticks_to_deadline: u32,
    rest_counter: u32,
    resting: bool,
    dead: [bool; 2],
}

impl Match {
    /// The match on `map` with two `car`s, player 1's at the left facing right, player 2's
    /// at the right, mirrored.
    pub(crate) fn new(map: &MapProto, car: &CarProto) -> Match {
        let mut space = Space::new(GRAVITY, DAMPING);
        // The map: borders (left, top, right, bottom), its segments in `proto_map` order, then
        // the deadline — created and added in this order, as `Match.__init__` lists them.
        let mut map_shapes = Vec::new();
        for ((x1, y1), (x2, y2)) in maps::borders() {
            let border = space.new_segment(None, vect(x1, y1), vect(x2, y2), maps::SEGMENT_HEIGHT);
            space.set_sensor(border);
            map_shapes.push(border);
        }
        for &(first, second) in &map.segments {
            let ((x1, y1), (x2, y2)) = (first.xy(), second.xy());
            let segment = space.new_segment(None, vect(x1, y1), vect(x2, y2), maps::SEGMENT_HEIGHT);
            space.set_friction(segment, maps::SEGMENT_FRICTION);
            space.set_elasticity(segment, maps::SEGMENT_ELASTICITY);
            map_shapes.push(segment);
        }
        // The deadline's kinematic body is never added to the space: it is moved by hand.
        let deadline = space.new_kinematic_body();
        let line = space.new_poly(
            deadline,
            &[
                vect(0.0, 2.0),
                vect(maps::WIDTH, 2.0),
                vect(maps::WIDTH, -DEADLINE_HEIGHT),
                vect(0.0, -DEADLINE_HEIGHT),
            ],
        );
        space.set_sensor(line);
        space.set_position(deadline, vect(0.0, DEADLINE_START));
        map_shapes.push(line);

        let mut cars = Vec::with_capacity(2);
        let mut adds = Vec::with_capacity(2);
        for (player, &(x, y)) in SPAWN.iter().enumerate() {
            let group = player + 1;
            let (built, add) = build_car(
                &mut space,
                car,
                group,
                if player == 0 { 1 } else { -1 },
                vect(x, y),
            );
            space.watch_begins(Car::button_type(group));
            cars.push(built);
            adds.push(add);
        }
        for shape in map_shapes {
            space.add_shape(shape);
        }
        for add in adds {
            add(&mut space);
        }
        let [one, two]: [Car; 2] = cars.try_into().ok().expect("two cars");
        Match {
            space,
            cars: [one, two],
            deadline,
            ticks_to_deadline: TICKS_TO_DEADLINE,
            rest_counter: 0,
            resting: false,
            dead: [false; 2],
        }
    }

    /// Begins a tick, as `Match.tick` does: a death in the last step starts the rest ticks,
    /// counted down from this one. Returns whether the players are asked this tick.
    pub(crate) fn start_tick(&mut self) -> bool {
        if !self.resting && self.dead.iter().any(|&d| d) {
            self.rest_counter = REST_TICKS;
            self.resting = true;
        }
        if self.rest_counter > 0 {
            self.rest_counter -= 1;
        }
        !self.resting
    }

    /// Ends a tick: the deadline waits or rises, the world steps, and deaths are counted (not
    /// while resting). Returns who died when the match is over.
    pub(crate) fn finish_tick(&mut self) -> Option<[bool; 2]> {
        if self.ticks_to_deadline < 1 {
            let position = self.space.position(self.deadline);
            self.space
                .set_position(self.deadline, vect(position.x, position.y + DEADLINE_STEP));
        } else {
            self.ticks_to_deadline -= 1;
        }
        self.space.pause_watch(self.resting);
        self.space.step(STEP);
        for kind in self.space.take_begins() {
            if let Some(car) = self
                .cars
                .iter()
                .position(|c| Car::button_type(c.group) == kind)
            {
                self.dead[car] = true;
            }
        }
        (self.resting && self.rest_counter == 0 && self.dead.iter().any(|&d| d))
            .then_some(self.dead)
    }

    /// Player `player`'s car as the messages describe it.
    pub(crate) fn car_state(&self, player: usize) -> CarState {
        let car = &self.cars[player];
        let at = |body: BodyId| {
            let p = self.space.position(body);
            [p.x, p.y, self.space.angle(body)]
        };
        let body = self.space.position(car.body);
        CarState {
            position: [body.x, body.y],
            angle: self.space.angle(car.body),
            direction: car.direction,
            rear: at(car.rear),
            front: at(car.front),
        }
    }

    pub(crate) fn deadline_position(&self) -> f64 {
        self.space.position(self.deadline).y
    }

    /// Applies a command to player `player`'s car, as the organisers' `Car.go_left`,
    /// `go_right` and `stop`: the motors turn the driven wheels (left: +max speed), and in the
    /// air left and right also turn the body for this step.
    pub(crate) fn drive(&mut self, player: usize, command: Command) {
        let (rate, torque) = {
            let car = &self.cars[player];
            match command {
                Command::Left => (car.max_speed, -car.torque),
                Command::Right => (-car.max_speed, car.torque),
                Command::Stop => (0.0, 0.0),
            }
        };
        if command != Command::Stop && self.in_air(player) {
            let body = self.cars[player].body;
            self.space.set_torque(body, torque);
        }
        for motor in self.cars[player].motors.clone() {
            self.space.set_motor_rate(motor, rate);
        }
    }

    /// Whether neither wheel has a shape of anything else (sensors aside) within its radius + 1.
    fn in_air(&mut self, player: usize) -> bool {
        let car = &self.cars[player];
        let (rear, front, group) = (car.rear, car.front, car.group);
        let (rear_reach, front_reach) = (car.rear_radius + 1.0, car.front_radius + 1.0);
        let rear_at = self.space.position(rear);
        let front_at = self.space.position(front);
        !(self.space.anything_near(rear_at, rear_reach, group)
            || self.space.anything_near(front_at, front_reach, group))
    }
}

/// Something to add to the space later, in its turn.
type Add = Box<dyn FnOnce(&mut Space)>;

/// Makes player `group`'s car as `Car.__init__` does, and returns it with what adds it to the
/// space at `spawn` in the order of `Car.get_objects_for_space_at`: button, body, car shape,
/// rear wheel body, front wheel body, each wheel's shape, groove and spring, then the motors.
fn build_car(
    space: &mut Space,
    proto: &CarProto,
    group: usize,
    direction: i8,
    spawn: Vect,
) -> (Car, Add) {
    let mirror = direction as f64;
    let (body, car_shape, button) = build_car_body(space, proto, group, mirror);
    let car_wheel = CarWheel {
        proto,
        body,
        group,
        mirror,
    };
    let rear = car_wheel.build(
        space,
        &proto.rear,
        matches!(proto.drive, Drive::Rear | Drive::Both),
    );
    let front = car_wheel.build(space, &proto.front, proto.drive == Drive::Both);
    let motors: Vec<ConstraintId> = [rear.motor, front.motor].into_iter().flatten().collect();
    let car = Car {
        group,
        direction,
        body,
        rear: rear.body,
        front: front.body,
        rear_radius: proto.rear.radius as f64,
        front_radius: proto.front.radius as f64,
        motors: motors.clone(),
        max_speed: proto.max_speed as f64,
        torque: proto.torque as f64,
    };
    let at = |(x, y): (i64, i64)| vect(spawn.x + x as f64 * mirror, spawn.y + y as f64);
    let (rear_at, front_at) = (at(proto.rear.position), at(proto.front.position));
    let add: Add = Box::new(move |space: &mut Space| {
        space.set_position(body, spawn);
        space.set_position(front.body, front_at);
        space.set_position(rear.body, rear_at);
        space.add_shape(button);
        space.add_body(body);
        space.add_shape(car_shape);
        space.add_body(rear.body);
        space.add_body(front.body);
        for wheel in [&rear, &front] {
            space.add_shape(wheel.shape);
            space.add_constraint(wheel.groove);
            space.add_constraint(wheel.spring);
        }
        for motor in motors {
            space.add_constraint(motor);
        }
    });
    (car, add)
}

/// The car's body with its shape and its button (a sensor), made in `Car.__init__`'s order,
/// mirrored by `mirror` (1 or -1): returns the body, the car shape and the button.
fn build_car_body(
    space: &mut Space,
    proto: &CarProto,
    group: usize,
    mirror: f64,
) -> (BodyId, ShapeId, ShapeId) {
    let poly: Vec<Vect> = proto
        .body_poly
        .iter()
        .map(|&(x, y)| vect(x as f64 * mirror, y as f64))
        .collect();
    let mass = proto.body_mass as f64;
    let body = space.new_body(mass, moment_for_poly(mass, &poly));
    let car_shape = space.new_poly(body, &poly);
    space.set_friction(car_shape, proto.body_friction);
    space.set_elasticity(car_shape, proto.body_elasticity);
    space.set_group(car_shape, group);
    let button_poly: Vec<Vect> = proto
        .button_poly()
        .iter()
        .map(|&(x, y)| vect(x.value() * mirror, y.value()))
        .collect();
    let button = space.new_poly(body, &button_poly);
    space.set_group(button, group);
    space.set_sensor(button);
    space.set_collision_type(button, Car::button_type(group));
    // The moment was taken about the origin; only now does the centre of gravity move to the
    // polygon's centroid, as the organisers' order has it.
    let centroid = space.shape_center_of_gravity(car_shape);
    space.set_center_of_gravity(body, centroid);
    (body, car_shape, button)
}

/// What every wheel of one car shares: the car's kind, its body, its player's group and its
/// mirror (1 or -1).
struct CarWheel<'a> {
    proto: &'a CarProto,
    body: BodyId,
    group: usize,
    mirror: f64,
}

/// A wheel made and not yet added to the space: its body, its shape, the groove and the
/// damped spring that hold it to the car, and its motor if it is driven.
struct WheelParts {
    body: BodyId,
    shape: ShapeId,
    groove: ConstraintId,
    spring: ConstraintId,
    motor: Option<ConstraintId>,
}

impl CarWheel<'_> {
    /// Makes `wheel` as `Car.__init__` makes each wheel, in its order: body, shape, groove, spring and,
    /// if `driven`, the motor.
    fn build(&self, space: &mut Space, wheel: &super::cars::Wheel, driven: bool) -> WheelParts {
        let (body, mirror) = (self.body, self.mirror);
        let mass = wheel.mass as f64;
        let radius = wheel.radius as f64;
        let moment = if self.proto.squared_wheels {
            moment_for_box(mass, radius * 2.0, radius * 2.0)
        } else {
            moment_for_circle(mass, radius)
        };
        let wheel_body = space.new_body(mass, moment);
        let (wx, wy) = wheel.position;
        space.set_position(wheel_body, vect(wx as f64 * mirror, wy as f64));
        let shape = if self.proto.squared_wheels {
            space.new_box(wheel_body, radius * 2.0, radius * 2.0)
        } else {
            space.new_circle(wheel_body, radius)
        };
        space.set_group(shape, self.group);
        space.set_friction(shape, wheel.friction.value());
        space.set_elasticity(shape, wheel.elasticity);
        let (dx, dy) = (
            wheel.damp_position.0 as f64 * mirror,
            wheel.damp_position.1 as f64,
        );
        let groove = space.new_groove_joint(
            body,
            wheel_body,
            vect(dx, dy - wheel.groove_offset as f64),
            vect(dx, dy - wheel.damp_length as f64 * 1.5),
            vect(0.0, 0.0),
        );
        let spring = space.new_damped_spring(
            wheel_body,
            body,
            vect(0.0, 0.0),
            vect(dx, dy),
            wheel.damp_length as f64,
            wheel.damp_stiffness,
            wheel.damp_damping,
        );
        let motor = driven.then(|| space.new_simple_motor(wheel_body, body, 0.0));
        WheelParts {
            body: wheel_body,
            shape,
            groove,
            spring,
            motor,
        }
    }
}
