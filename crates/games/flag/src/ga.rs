//! The seed's genetic algorithm: chromosomes of moves, tournament selection, one-point crossover
//! cut before the parents got stuck, and a few random mutations per child.

use rand::RngExt;

use super::rules::{Level, Move, Outcome, walk};
use koth_game::seed::Rng;

/// Every knob of the GA; the defaults are the seed's.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// Individuals per generation (even: children are made in pairs).
    pub population: usize,
    /// Rivals each tournament pick is compared with.
    pub tournament: usize,
    /// Chance that a pair of parents is crossed over rather than copied.
    pub crossover_rate: f64,
    /// Each child gets a random number of mutations in `0..=max_mutations`.
    pub max_mutations: usize,
    pub generations: u32,
    /// Restart from a random population after this many generations without a better best.
    pub restart_after: u32,
    /// Chromosome length = round(length_factor × steps needed).
    pub length_factor: f64,
    /// Stop at the first generation that holds a solution.
    pub stop_when_solved: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            population: 100,
            tournament: 3,
            crossover_rate: 0.7,
            max_mutations: 3,
            generations: 10_000,
            restart_after: 2_000,
            length_factor: 1.5,
            stop_when_solved: true,
        }
    }
}

/// One generation's figures, for the text report and the plot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Generation {
    pub number: u32,
    /// The best fitness in this generation.
    pub best_fitness: i64,
    /// Steps taken by this generation's best individual.
    pub best_steps: u32,
    /// Whether the population was just replaced by a random one.
    pub restarted: bool,
}

/// The result of a run.
#[derive(Debug, Clone)]
pub struct Run {
    /// The best individual found (a solution, if one was found).
    pub best: Vec<Move>,
    pub best_outcome: Outcome,
    /// The generation (from 0) whose population first held a solution.
    pub solved_at: Option<u32>,
    pub history: Vec<Generation>,
}

type Chromosome = Vec<Move>;

fn random_move(rng: &mut Rng) -> Move {
    Move::ALL[rng.random_range(0..4)]
}

fn random_population(rng: &mut Rng, params: &Params, length: usize) -> Vec<Chromosome> {
    (0..params.population)
        .map(|_| (0..length).map(|_| random_move(rng)).collect())
        .collect()
}

/// Tournament selection as in the seed: a random individual, replaced by any of `k` random
/// rivals that scores higher.
fn select(rng: &mut Rng, scores: &[Outcome], k: usize) -> usize {
    let mut chosen = rng.random_range(0..scores.len());
    for _ in 0..k {
        let rival = rng.random_range(0..scores.len());
        if scores[rival].fitness > scores[chosen].fitness {
            chosen = rival;
        }
    }
    chosen
}

/// The crossover cut: uniform in `1..max(stuck₁, stuck₂, 2)` (upper end excluded, as numpy's
/// `randint`), so children keep a parent's useful head and swap only genes it actually read.
pub(crate) fn crossover_point(rng: &mut Rng, stuck_a: usize, stuck_b: usize) -> usize {
    rng.random_range(1..stuck_a.max(stuck_b).max(2))
}

fn mutate(rng: &mut Rng, child: &mut Chromosome, max_mutations: usize) {
    for _ in 0..rng.random_range(0..=max_mutations) {
        let at = rng.random_range(0..child.len());
        child[at] = random_move(rng);
    }
}

/// Runs the GA on `level`, telling `on_generation` about each generation as it ends.
pub fn run(
    level: &Level,
    params: &Params,
    rng: &mut Rng,
    mut on_generation: impl FnMut(&Generation),
) -> Run {
    let length = ((params.length_factor * f64::from(level.steps_needed())).round() as usize).max(2);
    let population = params.population.max(2) & !1;
    let params = Params {
        population,
        ..params.clone()
    };
    let mut pop = random_population(rng, &params, length);
    let (first, _) = walk(level, pop[0].iter().copied());
    let mut best = (pop[0].clone(), first);
    let mut epoch_best = i64::MIN;
    let mut since_better = 0;
    let mut solved_at = None;
    let mut history = Vec::new();
    let mut restarted = false;
    for number in 0..params.generations {
        let scores: Vec<Outcome> = pop
            .iter()
            .map(|c| walk(level, c.iter().copied()).0)
            .collect();
        let (gen_best, gen_outcome) = scores
            .iter()
            .enumerate()
            .max_by_key(|(_, o)| (o.solved, o.fitness))
            .expect("the population is never empty");
        let record = Generation {
            number,
            best_fitness: gen_outcome.fitness,
            best_steps: gen_outcome.steps,
            restarted,
        };
        history.push(record);
        on_generation(&record);
        if (gen_outcome.solved, gen_outcome.fitness) > (best.1.solved, best.1.fitness) {
            best = (pop[gen_best].clone(), gen_outcome.clone());
        }
        if gen_outcome.solved && solved_at.is_none() {
            solved_at = Some(number);
            if params.stop_when_solved {
                break;
            }
        }
        if gen_outcome.fitness > epoch_best {
            epoch_best = gen_outcome.fitness;
            since_better = 0;
        } else {
            since_better += 1;
        }
        restarted = since_better >= params.restart_after;
        if restarted {
            // The seed's escape from a stuck population; the best so far is kept in `best`.
            pop = random_population(rng, &params, length);
            epoch_best = i64::MIN;
            since_better = 0;
            continue;
        }
        pop = next_generation(rng, &pop, &scores, &params);
    }
    Run {
        best: best.0,
        best_outcome: best.1,
        solved_at,
        history,
    }
}

/// The children of `pop` (scored `scores`): parents picked by tournament, crossed over in pairs
/// (or copied), then mutated, in the seed's order of draws.
fn next_generation(
    rng: &mut Rng,
    pop: &[Chromosome],
    scores: &[Outcome],
    params: &Params,
) -> Vec<Chromosome> {
    let selected: Vec<usize> = (0..params.population)
        .map(|_| select(rng, scores, params.tournament))
        .collect();
    let mut children = Vec::with_capacity(params.population);
    for pair in selected.chunks(2) {
        let (a, b) = (&pop[pair[0]], &pop[pair[1]]);
        let (mut c1, mut c2) = if rng.random_bool(params.crossover_rate) {
            let stuck = (scores[pair[0]].stuck_after, scores[pair[1]].stuck_after);
            let cut = crossover_point(rng, stuck.0, stuck.1);
            let mut c1 = a[..cut].to_vec();
            c1.extend_from_slice(&b[cut..]);
            let mut c2 = b[..cut].to_vec();
            c2.extend_from_slice(&a[cut..]);
            (c1, c2)
        } else {
            (a.clone(), b.clone())
        };
        mutate(rng, &mut c1, params.max_mutations);
        mutate(rng, &mut c2, params.max_mutations);
        children.push(c1);
        children.push(c2);
    }
    children
}

#[cfg(test)]
mod tests {
    use super::*;
    use koth_game::seed;

    #[test]
    fn crossover_point_stays_between_one_and_the_furthest_stuck_gene() {
        let mut rng = seed::rng(7, 0);
        for (a, b) in [(0, 0), (1, 0), (2, 2), (5, 9), (30, 3)] {
            let hi = usize::max(a, b).max(2);
            let mut seen = std::collections::HashSet::new();
            for _ in 0..500 {
                let cut = crossover_point(&mut rng, a, b);
                assert!((1..hi).contains(&cut), "cut {cut} for stuck {a}, {b}");
                seen.insert(cut);
            }
            assert_eq!(seen.len(), hi - 1, "every cut in 1..{hi} happens");
        }
    }

    #[test]
    fn mutation_changes_at_most_the_maximum_number_of_genes() {
        let mut rng = seed::rng(3, 0);
        for _ in 0..200 {
            let mut child = vec![Move::Up; 40];
            mutate(&mut rng, &mut child, 3);
            assert!(child.iter().filter(|&&m| m != Move::Up).count() <= 3);
        }
    }

    #[test]
    fn same_seed_same_run() {
        let level = Level::parse("t", "flag-value -3\ns111\n1.11\n111F").unwrap();
        let params = Params {
            generations: 200,
            stop_when_solved: false,
            ..Params::default()
        };
        let a = run(&level, &params, &mut seed::rng(11, 0), |_| {});
        let b = run(&level, &params, &mut seed::rng(11, 0), |_| {});
        assert_eq!(a.best, b.best);
        assert_eq!(a.history, b.history);
        assert_eq!(a.history.len(), 200);
    }

    #[test]
    fn restarts_after_the_configured_stagnation() {
        // A level with nothing to gain: every individual scores the same forever.
        let level = Level::parse("t", "flag-value 0\nsF").unwrap();
        let params = Params {
            generations: 25,
            restart_after: 10,
            stop_when_solved: false,
            ..Params::default()
        };
        let run = run(&level, &params, &mut seed::rng(1, 0), |_| {});
        let restarts: Vec<u32> = run
            .history
            .iter()
            .filter(|g| g.restarted)
            .map(|g| g.number)
            .collect();
        assert_eq!(restarts, vec![11, 22]);
    }
}

#[cfg(test)]
mod shipped_levels {
    use super::*;
    use koth_game::seed;

    #[test]
    fn the_ga_solves_the_easy_levels_from_fixed_seeds() {
        for name in ["1-ring", "2-dark-centre"] {
            let path = format!(
                "{}/../../../levels/flag/{name}.txt",
                env!("CARGO_MANIFEST_DIR")
            );
            let level = Level::load(std::path::Path::new(&path)).unwrap();
            for s in 1..=3 {
                let run = run(&level, &Params::default(), &mut seed::rng(s, 0), |_| {});
                assert!(run.best_outcome.solved, "{name} with seed {s}");
                assert!(walk(&level, run.best.iter().copied()).0.solved);
                assert_eq!(run.solved_at, Some(run.history.len() as u32 - 1));
            }
        }
    }
}
