//! Chipmunk 7, the organisers' physics engine, through FFI to Debian's `libchipmunk` (7.0.3,
//! which steps as their 7.0.1 did): exactly the calls their Python (pymunk) made, behind a
//! [`Space`] that owns everything added to it and frees it all when dropped.
//!
//! Bodies, shapes and constraints are handed out as indices into the space's lists, so no handle
//! outlives the memory it names. Only what Mad Cars uses is bound; each function's signature is
//! the one in `/usr/include/chipmunk`.

use std::ffi::c_void;
use std::os::raw::{c_int, c_uchar, c_uint};
use std::sync::{LazyLock, Once};

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Vect {
    pub(crate) x: f64,
    pub(crate) y: f64,
}

pub(crate) const fn vect(x: f64, y: f64) -> Vect {
    Vect { x, y }
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Transform {
    a: f64,
    b: f64,
    c: f64,
    d: f64,
    tx: f64,
    ty: f64,
}

const IDENTITY: Transform = Transform {
    a: 1.0,
    b: 0.0,
    c: 0.0,
    d: 1.0,
    tx: 0.0,
    ty: 0.0,
};

#[repr(C)]
#[derive(Clone, Copy)]
struct ShapeFilter {
    group: usize,
    categories: c_uint,
    mask: c_uint,
}

/// The filter pymunk's `ShapeFilter(group=g)` makes: every category, every mask.
const fn group_filter(group: usize) -> ShapeFilter {
    ShapeFilter {
        group,
        categories: !0,
        mask: !0,
    }
}

#[repr(C)]
struct PointQueryInfo {
    shape: *const c_void,
    point: Vect,
    distance: f64,
    gradient: Vect,
}

type BeginFunc =
    extern "C" fn(arbiter: *mut c_void, space: *mut c_void, data: *mut c_void) -> c_uchar;

#[repr(C)]
struct CollisionHandler {
    type_a: usize,
    type_b: usize,
    begin: Option<BeginFunc>,
    pre_solve: *mut c_void,
    post_solve: *mut c_void,
    separate: *mut c_void,
    user_data: *mut c_void,
}

/// The shared library of Debian's `libchipmunk7`. It is opened when Mad Cars is first played,
/// not linked: koth builds and plays every other game on a machine without it, and Mad Cars says
/// what to install instead of failing to start.
const LIBRARY: &str = "libchipmunk.so.7";

/// Declares the Chipmunk functions koth calls: a table of them, filled from [`LIBRARY`] once,
/// and a function of the C name for each, which calls through the table.
macro_rules! chipmunk {
    ($(fn $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)?;)*) => {
        #[allow(non_snake_case)]
        struct Chipmunk {
            $($name: unsafe extern "C" fn($($ty),*) $(-> $ret)?,)*
            _library: libloading::Library,
        }

        impl Chipmunk {
            fn load() -> Result<Chipmunk, libloading::Error> {
                // SAFETY: loading Chipmunk runs no initialisers of consequence; every symbol is
                // taken with the signature of its declaration in /usr/include/chipmunk.
                unsafe {
                    let library = libloading::Library::new(LIBRARY)?;
                    Ok(Chipmunk {
                        $($name: *library.get(concat!(stringify!($name), "\0").as_bytes())?,)*
                        _library: library,
                    })
                }
            }
        }

        $(
            #[allow(non_snake_case)]
            unsafe fn $name($($arg: $ty),*) $(-> $ret)? {
                // SAFETY: the caller upholds the C function's contract.
                unsafe { (chipmunk().$name)($($arg),*) }
            }
        )*
    };
}

chipmunk! {
    fn cpSpaceNew() -> *mut c_void;
    fn cpSpaceFree(space: *mut c_void);
    fn cpSpaceSetGravity(space: *mut c_void, gravity: Vect);
    fn cpSpaceSetDamping(space: *mut c_void, damping: f64);
    fn cpSpaceGetStaticBody(space: *const c_void) -> *mut c_void;
    fn cpSpaceAddShape(space: *mut c_void, shape: *mut c_void) -> *mut c_void;
    fn cpSpaceAddBody(space: *mut c_void, body: *mut c_void) -> *mut c_void;
    fn cpSpaceAddConstraint(space: *mut c_void, constraint: *mut c_void) -> *mut c_void;
    fn cpSpaceAddWildcardHandler(space: *mut c_void, kind: usize) -> *mut CollisionHandler;
    fn cpSpacePointQueryNearest(space: *mut c_void, point: Vect, max_distance: f64, filter: ShapeFilter, out: *mut PointQueryInfo) -> *mut c_void;
    fn cpSpaceStep(space: *mut c_void, dt: f64);
    fn cpBodyNew(mass: f64, moment: f64) -> *mut c_void;
    fn cpBodyNewKinematic() -> *mut c_void;
    fn cpBodyFree(body: *mut c_void);
    fn cpBodyGetPosition(body: *const c_void) -> Vect;
    fn cpBodySetPosition(body: *mut c_void, position: Vect);
    fn cpBodyGetAngle(body: *const c_void) -> f64;
    fn cpBodySetCenterOfGravity(body: *mut c_void, cog: Vect);
    fn cpBodySetTorque(body: *mut c_void, torque: f64);
    fn cpMomentForCircle(mass: f64, r1: f64, r2: f64, offset: Vect) -> f64;
    fn cpMomentForBox(mass: f64, width: f64, height: f64) -> f64;
    fn cpMomentForPoly(mass: f64, count: c_int, verts: *const Vect, offset: Vect, radius: f64) -> f64;
    fn cpSegmentShapeNew(body: *mut c_void, a: Vect, b: Vect, radius: f64) -> *mut c_void;
    fn cpPolyShapeNew(body: *mut c_void, count: c_int, verts: *const Vect, transform: Transform, radius: f64) -> *mut c_void;
    fn cpBoxShapeNew(body: *mut c_void, width: f64, height: f64, radius: f64) -> *mut c_void;
    fn cpCircleShapeNew(body: *mut c_void, radius: f64, offset: Vect) -> *mut c_void;
    fn cpShapeFree(shape: *mut c_void);
    fn cpShapeGetCenterOfGravity(shape: *mut c_void) -> Vect;
    fn cpShapeSetSensor(shape: *mut c_void, sensor: c_uchar);
    fn cpShapeSetElasticity(shape: *mut c_void, elasticity: f64);
    fn cpShapeSetFriction(shape: *mut c_void, friction: f64);
    fn cpShapeSetCollisionType(shape: *mut c_void, kind: usize);
    fn cpShapeSetFilter(shape: *mut c_void, filter: ShapeFilter);
    fn cpGrooveJointNew(a: *mut c_void, b: *mut c_void, groove_a: Vect, groove_b: Vect, anchor_b: Vect) -> *mut c_void;
    fn cpDampedSpringNew(a: *mut c_void, b: *mut c_void, anchor_a: Vect, anchor_b: Vect, rest_length: f64, stiffness: f64, damping: f64) -> *mut c_void;
    fn cpSimpleMotorNew(a: *mut c_void, b: *mut c_void, rate: f64) -> *mut c_void;
    fn cpSimpleMotorSetRate(motor: *mut c_void, rate: f64);
    fn cpConstraintFree(constraint: *mut c_void);
}

static CHIPMUNK: LazyLock<Result<Chipmunk, String>> =
    LazyLock::new(|| Chipmunk::load().map_err(|e| e.to_string()));

/// Whether Chipmunk can be loaded; the error says what to install.
pub(crate) fn check_available() -> anyhow::Result<()> {
    match &*CHIPMUNK {
        Ok(_) => Ok(()),
        Err(why) => anyhow::bail!(
            "Mad Cars needs the Chipmunk 7 physics library ({LIBRARY}: {why}); on Debian: \
             apt-get install libchipmunk7"
        ),
    }
}

fn chipmunk() -> &'static Chipmunk {
    CHIPMUNK
        .as_ref()
        .expect("check_available() is called before any space is made")
}

/// The moment of inertia of a polygon of `mass` about the body's origin, as
/// `pymunk.moment_for_poly(mass, vertices)` computes it.
pub(crate) fn moment_for_poly(mass: f64, vertices: &[Vect]) -> f64 {
    // SAFETY: the pointer and count describe `vertices`, which Chipmunk only reads.
    unsafe {
        cpMomentForPoly(
            mass,
            vertices.len() as c_int,
            vertices.as_ptr(),
            Vect::default(),
            0.0,
        )
    }
}

/// The moment of inertia of a disc, as `pymunk.moment_for_circle(mass, 0, radius)`.
pub(crate) fn moment_for_circle(mass: f64, radius: f64) -> f64 {
    // SAFETY: a pure function of its arguments.
    unsafe { cpMomentForCircle(mass, 0.0, radius, Vect::default()) }
}

/// The moment of inertia of a box, as `pymunk.moment_for_box(mass, (width, height))`.
pub(crate) fn moment_for_box(mass: f64, width: f64, height: f64) -> f64 {
    // SAFETY: a pure function of its arguments.
    unsafe { cpMomentForBox(mass, width, height) }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BodyId(usize);
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ShapeId(usize);
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ConstraintId(usize);

/// Which bodies a collision of a watched collision type touched first, for the game to read
/// after a step. Lives in a box of its own, whose address the C callbacks are given.
#[derive(Debug, Default)]
struct Watch {
    /// While set, begins are ignored (the game's rest ticks); every begin still returns false.
    paused: bool,
    /// Collision types whose begin fired while not paused.
    began: Vec<usize>,
}

extern "C" fn watched_begin(
    _arbiter: *mut c_void,
    _space: *mut c_void,
    data: *mut c_void,
) -> c_uchar {
    // SAFETY: `data` is the `WatchData` the handler was registered with, which the space owns
    // and keeps at this address for as long as the handler can fire (until the space is freed).
    let data = unsafe { &mut *(data as *mut WatchData) };
    // SAFETY: the watch outlives the space, as `data` does.
    let watch = unsafe { &mut *data.watch };
    if !watch.paused {
        watch.began.push(data.kind);
    }
    // The organisers' handler returns False: the touch has no physical effect.
    0
}

/// What a handler's callback is given: the watch to write to and the type it watches.
struct WatchData {
    watch: *mut Watch,
    kind: usize,
}

/// A Chipmunk space and everything in it.
pub(crate) struct Space {
    space: *mut c_void,
    bodies: Vec<*mut c_void>,
    shapes: Vec<*mut c_void>,
    constraints: Vec<*mut c_void>,
    watch: Box<Watch>,
    /// Each handler's data, boxed so that its address, given to C, never moves.
    #[allow(clippy::vec_box)]
    watch_data: Vec<Box<WatchData>>,
}

/// Debian's Chipmunk is built with debug output, which prints a banner to stdout when the first
/// space of a process is made: koth's stdout is for people (and pipes), so the banner goes to
/// /dev/null while Rust's stdout is held.
fn silence_the_banner() {
    static BANNER: Once = Once::new();
    BANNER.call_once(|| {
        use nix::libc;
        use std::io::Write;
        let held = std::io::stdout().lock();
        let mut held = held;
        let _ = held.flush();
        // SAFETY: fd 1 is pointed at /dev/null and back while Rust's stdout is locked, and C's
        // stdio buffer is flushed before it comes back; both descriptors made here are closed.
        unsafe {
            let saved = libc::dup(1);
            let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            if saved >= 0 && null >= 0 {
                libc::dup2(null, 1);
                cpSpaceFree(cpSpaceNew());
                libc::fflush(std::ptr::null_mut());
                libc::dup2(saved, 1);
            }
            for fd in [saved, null] {
                if fd >= 0 {
                    libc::close(fd);
                }
            }
        }
    });
}

impl Space {
    /// A space as the organisers' game makes one: `gravity`, `damping`, Chipmunk's defaults
    /// otherwise (10 iterations, collision slop 0.1).
    pub(crate) fn new(gravity: Vect, damping: f64) -> Space {
        silence_the_banner();
        // SAFETY: a new space, configured before use.
        let space = unsafe {
            let space = cpSpaceNew();
            cpSpaceSetGravity(space, gravity);
            cpSpaceSetDamping(space, damping);
            space
        };
        Space {
            space,
            bodies: Vec::new(),
            shapes: Vec::new(),
            constraints: Vec::new(),
            watch: Box::default(),
            watch_data: Vec::new(),
        }
    }

    /// A dynamic body (not yet in the space: [`Space::add_body`]).
    pub(crate) fn new_body(&mut self, mass: f64, moment: f64) -> BodyId {
        // SAFETY: Chipmunk allocates the body; the space frees it.
        self.bodies.push(unsafe { cpBodyNew(mass, moment) });
        BodyId(self.bodies.len() - 1)
    }

    /// A kinematic body, moved only by setting its position.
    pub(crate) fn new_kinematic_body(&mut self) -> BodyId {
        // SAFETY: as `new_body`.
        self.bodies.push(unsafe { cpBodyNewKinematic() });
        BodyId(self.bodies.len() - 1)
    }

    fn body(&self, body: Option<BodyId>) -> *mut c_void {
        match body {
            Some(BodyId(index)) => self.bodies[index],
            // SAFETY: the space's own static body, which lives as long as the space.
            None => unsafe { cpSpaceGetStaticBody(self.space) },
        }
    }

    pub(crate) fn add_body(&mut self, body: BodyId) {
        // SAFETY: a body of this space's, added once.
        unsafe { cpSpaceAddBody(self.space, self.bodies[body.0]) };
    }

    pub(crate) fn position(&self, body: BodyId) -> Vect {
        // SAFETY: a live body of this space's.
        unsafe { cpBodyGetPosition(self.bodies[body.0]) }
    }

    pub(crate) fn set_position(&mut self, body: BodyId, position: Vect) {
        // SAFETY: a live body of this space's.
        unsafe { cpBodySetPosition(self.bodies[body.0], position) }
    }

    pub(crate) fn angle(&self, body: BodyId) -> f64 {
        // SAFETY: a live body of this space's.
        unsafe { cpBodyGetAngle(self.bodies[body.0]) }
    }

    pub(crate) fn set_center_of_gravity(&mut self, body: BodyId, cog: Vect) {
        // SAFETY: a live body of this space's.
        unsafe { cpBodySetCenterOfGravity(self.bodies[body.0], cog) }
    }

    pub(crate) fn set_torque(&mut self, body: BodyId, torque: f64) {
        // SAFETY: a live body of this space's.
        unsafe { cpBodySetTorque(self.bodies[body.0], torque) }
    }

    fn shape(&mut self, shape: *mut c_void) -> ShapeId {
        self.shapes.push(shape);
        ShapeId(self.shapes.len() - 1)
    }

    /// A segment on `body` (`None`: the space's static body).
    pub(crate) fn new_segment(
        &mut self,
        body: Option<BodyId>,
        a: Vect,
        b: Vect,
        radius: f64,
    ) -> ShapeId {
        let body = self.body(body);
        // SAFETY: a shape on a live body; the space frees it.
        self.shape(unsafe { cpSegmentShapeNew(body, a, b, radius) })
    }

    /// A convex polygon on `body` (Chipmunk takes the hull of `vertices`, as pymunk's `Poly`).
    pub(crate) fn new_poly(&mut self, body: BodyId, vertices: &[Vect]) -> ShapeId {
        let body = self.body(Some(body));
        // SAFETY: the pointer and count describe `vertices`, copied by Chipmunk.
        self.shape(unsafe {
            cpPolyShapeNew(
                body,
                vertices.len() as c_int,
                vertices.as_ptr(),
                IDENTITY,
                0.0,
            )
        })
    }

    /// A box centred on the body's origin, as pymunk's `Poly.create_box(body, (width, height))`.
    pub(crate) fn new_box(&mut self, body: BodyId, width: f64, height: f64) -> ShapeId {
        let body = self.body(Some(body));
        // SAFETY: a shape on a live body; the space frees it.
        self.shape(unsafe { cpBoxShapeNew(body, width, height, 0.0) })
    }

    pub(crate) fn new_circle(&mut self, body: BodyId, radius: f64) -> ShapeId {
        let body = self.body(Some(body));
        // SAFETY: a shape on a live body; the space frees it.
        self.shape(unsafe { cpCircleShapeNew(body, radius, Vect::default()) })
    }

    pub(crate) fn add_shape(&mut self, shape: ShapeId) {
        // SAFETY: a shape of this space's, added once.
        unsafe { cpSpaceAddShape(self.space, self.shapes[shape.0]) };
    }

    pub(crate) fn shape_center_of_gravity(&self, shape: ShapeId) -> Vect {
        // SAFETY: a live shape of this space's.
        unsafe { cpShapeGetCenterOfGravity(self.shapes[shape.0]) }
    }

    pub(crate) fn set_friction(&mut self, shape: ShapeId, friction: f64) {
        // SAFETY: a live shape of this space's.
        unsafe { cpShapeSetFriction(self.shapes[shape.0], friction) }
    }

    pub(crate) fn set_elasticity(&mut self, shape: ShapeId, elasticity: f64) {
        // SAFETY: a live shape of this space's.
        unsafe { cpShapeSetElasticity(self.shapes[shape.0], elasticity) }
    }

    pub(crate) fn set_sensor(&mut self, shape: ShapeId) {
        // SAFETY: a live shape of this space's.
        unsafe { cpShapeSetSensor(self.shapes[shape.0], 1) }
    }

    pub(crate) fn set_collision_type(&mut self, shape: ShapeId, kind: usize) {
        // SAFETY: a live shape of this space's.
        unsafe { cpShapeSetCollisionType(self.shapes[shape.0], kind) }
    }

    /// Puts the shape in `group`: shapes of one group never collide with each other.
    pub(crate) fn set_group(&mut self, shape: ShapeId, group: usize) {
        // SAFETY: a live shape of this space's.
        unsafe { cpShapeSetFilter(self.shapes[shape.0], group_filter(group)) }
    }

    fn constraint(&mut self, constraint: *mut c_void) -> ConstraintId {
        self.constraints.push(constraint);
        ConstraintId(self.constraints.len() - 1)
    }

    pub(crate) fn new_groove_joint(
        &mut self,
        a: BodyId,
        b: BodyId,
        groove_a: Vect,
        groove_b: Vect,
        anchor_b: Vect,
    ) -> ConstraintId {
        let (a, b) = (self.body(Some(a)), self.body(Some(b)));
        // SAFETY: a constraint between live bodies; the space frees it.
        self.constraint(unsafe { cpGrooveJointNew(a, b, groove_a, groove_b, anchor_b) })
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new_damped_spring(
        &mut self,
        a: BodyId,
        b: BodyId,
        anchor_a: Vect,
        anchor_b: Vect,
        rest_length: f64,
        stiffness: f64,
        damping: f64,
    ) -> ConstraintId {
        let (a, b) = (self.body(Some(a)), self.body(Some(b)));
        // SAFETY: as `new_groove_joint`.
        self.constraint(unsafe {
            cpDampedSpringNew(a, b, anchor_a, anchor_b, rest_length, stiffness, damping)
        })
    }

    pub(crate) fn new_simple_motor(&mut self, a: BodyId, b: BodyId, rate: f64) -> ConstraintId {
        let (a, b) = (self.body(Some(a)), self.body(Some(b)));
        // SAFETY: as `new_groove_joint`.
        self.constraint(unsafe { cpSimpleMotorNew(a, b, rate) })
    }

    pub(crate) fn set_motor_rate(&mut self, motor: ConstraintId, rate: f64) {
        // SAFETY: a live simple motor of this space's (made by `new_simple_motor`).
        unsafe { cpSimpleMotorSetRate(self.constraints[motor.0], rate) }
    }

    pub(crate) fn add_constraint(&mut self, constraint: ConstraintId) {
        // SAFETY: a constraint of this space's, added once.
        unsafe { cpSpaceAddConstraint(self.space, self.constraints[constraint.0]) };
    }

    /// Watches every collision that shapes of collision type `kind` begin, as pymunk's
    /// `add_wildcard_collision_handler(kind).begin` does; the touch itself is ignored.
    pub(crate) fn watch_begins(&mut self, kind: usize) {
        let mut data = Box::new(WatchData {
            watch: &mut *self.watch,
            kind,
        });
        // SAFETY: the handler belongs to the space; its user data is boxed and kept by the
        // space until after the space is freed.
        unsafe {
            let handler = cpSpaceAddWildcardHandler(self.space, kind);
            (*handler).begin = Some(watched_begin);
            (*handler).user_data = (&mut *data as *mut WatchData).cast();
        }
        self.watch_data.push(data);
    }

    /// While paused, watched begins are not kept.
    pub(crate) fn pause_watch(&mut self, paused: bool) {
        self.watch.paused = paused;
    }

    /// The collision types whose begins fired since the last call.
    pub(crate) fn take_begins(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.watch.began)
    }

    /// Whether any shape not in `group` (sensors aside) lies within `distance` of `point`, as
    /// pymunk's `point_query_nearest(point, distance, ShapeFilter(group=group))` finds one.
    pub(crate) fn anything_near(&mut self, point: Vect, distance: f64, group: usize) -> bool {
        let mut info = PointQueryInfo {
            shape: std::ptr::null(),
            point: Vect::default(),
            distance: 0.0,
            gradient: Vect::default(),
        };
        // SAFETY: a query of the live space into a local.
        let shape = unsafe {
            cpSpacePointQueryNearest(self.space, point, distance, group_filter(group), &mut info)
        };
        !shape.is_null()
    }

    pub(crate) fn step(&mut self, dt: f64) {
        // SAFETY: the space and all it holds are live.
        unsafe { cpSpaceStep(self.space, dt) }
    }
}

impl Drop for Space {
    fn drop(&mut self) {
        // SAFETY: the space goes first (it frees its own static body and arbiters, and reads
        // none of its objects while doing so); then every object this space made, once.
        unsafe {
            cpSpaceFree(self.space);
            for &constraint in &self.constraints {
                cpConstraintFree(constraint);
            }
            for &shape in &self.shapes {
                cpShapeFree(shape);
            }
            for &body in &self.bodies {
                cpBodyFree(body);
            }
        }
    }
}

// A space is used by one thread at a time; Chipmunk keeps no thread-local state.
unsafe impl Send for Space {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_falls_onto_a_segment_and_rests_there() {
        let mut space = Space::new(vect(0.0, -700.0), 0.85);
        let floor = space.new_segment(None, vect(-100.0, 0.0), vect(100.0, 0.0), 10.0);
        space.set_friction(floor, 1.0);
        space.add_shape(floor);
        let square = [
            vect(-5.0, -5.0),
            vect(5.0, -5.0),
            vect(5.0, 5.0),
            vect(-5.0, 5.0),
        ];
        let body = space.new_body(1.0, moment_for_poly(1.0, &square));
        space.set_position(body, vect(0.0, 50.0));
        space.add_body(body);
        let shape = space.new_poly(body, &square);
        space.set_friction(shape, 1.0);
        space.add_shape(shape);
        for _ in 0..300 {
            space.step(0.016);
        }
        let y = space.position(body).y;
        // Resting on the segment's top (radius 10) with its half-height 5, within slop.
        assert!((y - 15.0).abs() < 0.5, "{y}");
    }

    #[test]
    fn a_sensor_s_begin_fires_once_and_the_touch_has_no_effect() {
        let mut space = Space::new(vect(0.0, -700.0), 1.0);
        let floor = space.new_segment(None, vect(-100.0, 0.0), vect(100.0, 0.0), 1.0);
        space.add_shape(floor);
        let body = space.new_body(1.0, moment_for_circle(1.0, 2.0));
        space.set_position(body, vect(0.0, 10.0));
        space.add_body(body);
        let ball = space.new_circle(body, 2.0);
        space.set_sensor(ball);
        space.set_collision_type(ball, 10);
        space.add_shape(ball);
        space.watch_begins(10);
        let mut begins = Vec::new();
        for _ in 0..30 {
            space.step(0.016);
            begins.extend(space.take_begins());
        }
        assert_eq!(begins, vec![10]);
        assert!(space.position(body).y < -10.0, "a sensor falls through");
    }

    #[test]
    fn a_motor_turns_a_wheel_and_a_point_query_sees_other_groups_only() {
        let mut space = Space::new(vect(0.0, 0.0), 1.0);
        let axle = space.new_body(10.0, moment_for_circle(10.0, 5.0));
        space.add_body(axle);
        let wheel = space.new_body(1.0, moment_for_circle(1.0, 5.0));
        space.add_body(wheel);
        let shape = space.new_circle(wheel, 5.0);
        space.set_group(shape, 1);
        space.add_shape(shape);
        let motor = space.new_simple_motor(wheel, axle, 0.0);
        space.add_constraint(motor);
        space.set_motor_rate(motor, 3.0);
        for _ in 0..10 {
            space.step(0.016);
        }
        assert!(space.angle(wheel) - space.angle(axle) > 0.3);
        assert!(
            !space.anything_near(vect(0.0, 0.0), 6.0, 1),
            "its own group"
        );
        assert!(space.anything_near(vect(0.0, 0.0), 6.0, 2));
        assert_eq!(moment_for_circle(2.0, 3.0), 9.0);
    }
}
