//! A tournament's policy of the [`runner`](super::runner): the bench (another worker's too), a
//! gauntlet's test and the games it no longer needs, and the progress bar with the leader.

use super::*;

/// A tournament's part in the [`runner`]: its bench (another worker's too), its gauntlet's
/// test, and its progress bar with the leader.
pub(crate) struct TournamentPolicy<'a> {
    pub(crate) tournament: &'a mut Tournament,
    pub(crate) bar: ProgressBar,
    pub(crate) points: Points,
    /// The tournament's games, skipped ones too (the bar's length drops as a gauntlet skips).
    pub(crate) total: u32,
    /// Whether to wait, once nothing is left to claim, for games other workers hold.
    pub(crate) wait_for_others: bool,
}

impl runner::Policy for TournamentPolicy<'_> {
    fn store(&self) -> &Store {
        &self.tournament.store
    }

    fn claimant(&self) -> &Claimant {
        &self.tournament.claimant
    }

    fn games_folder(&self) -> &Path {
        &self.tournament.dir
    }

    fn turn(&mut self) -> anyhow::Result<runner::Turn> {
        let tournament = &mut *self.tournament;
        if tournament.store.is_shared() {
            // Another worker may have benched a bot.
            for (bot, reason) in tournament.store.benched()? {
                tournament.bots[bot].benched.get_or_insert(reason);
            }
        }
        Ok(runner::Turn {
            room: tournament.jobs,
            left_to_others: tournament.refused.clone(),
        })
    }

    fn game_parts(
        &mut self,
        game: &ScheduledGame,
        _attempt: u32,
        claim: Claim,
    ) -> anyhow::Result<Option<GameParts>> {
        self.tournament.setup_parts(game, claim).map(Some)
    }

    fn waits(&mut self) -> anyhow::Result<bool> {
        // Games other workers hold: done soon, or back in the queue if they die.
        let tournament = &self.tournament;
        Ok(self.wait_for_others && tournament.store.unplayed(&tournament.refused)? > 0)
    }

    fn looks_again(&self, running: usize, jobs: usize) -> bool {
        // With a free slot, games a worker that died released.
        self.tournament.store.is_shared() && running < jobs
    }

    fn streaks(&self, game: &ScheduledGame, result: &MatchResult) -> Vec<(usize, u32)> {
        self.tournament.streaks_after(game, result)
    }

    fn recorded(
        &mut self,
        game: &ScheduledGame,
        result: &MatchResult,
        streaks: &[(usize, u32)],
    ) -> anyhow::Result<()> {
        let tournament = &mut *self.tournament;
        for &(bot, failures) in streaks {
            tournament.start_failures[bot] = failures;
        }
        for bot in tournament.bench_failing(streaks)? {
            let spec = &tournament.bots[bot];
            let reason = spec.benched.as_deref().unwrap_or_default();
            let message = format!("{:?} is {reason}", spec.name);
            self.bar
                .suspend(|| eprintln!("koth: {}", text::shown(&message)));
        }
        self.points.add(game, result);
        if let Some(skipped) = tournament.take_gauntlet_result(game, result)? {
            self.bar
                .suspend(|| eprintln!("koth: {}", text::shown(&skipped)));
            let skipped = tournament.store.progress()?.skipped;
            self.bar.set_length((self.total - skipped) as u64);
        }
        self.bar.inc(1);
        self.bar.set_message(self.points.leader(&tournament.bots));
        Ok(())
    }

    fn faulted(&mut self, game: &ScheduledGame) -> anyhow::Result<()> {
        let tournament = &mut *self.tournament;
        let decided = tournament
            .gauntlet
            .as_ref()
            .is_some_and(|g| g.opponent_of(game.index).is_some_and(|o| g.decided(o)));
        if decided {
            tournament.store.skip(&[game.index])?;
        }
        Ok(())
    }

    fn say(&self, line: &str) {
        self.bar.suspend(|| eprintln!("koth: {line}"));
    }
}

/// Points so far per bot, for the progress bar's leader (kept in memory: rating every game again
/// after each game would grow with the square of the tournament).
pub(crate) struct Points {
    totals: Vec<(f64, u32)>,
}

impl Points {
    pub(crate) fn new(bots: usize, store: &Store) -> anyhow::Result<Points> {
        let mut totals = vec![(0.0, 0); bots];
        for r in store.results()? {
            totals[r.bot].0 += r.score;
            totals[r.bot].1 += 1;
        }
        Ok(Points { totals })
    }

    fn add(&mut self, game: &ScheduledGame, result: &MatchResult) {
        for (&bot, outcome) in game.seats.iter().zip(&result.bots) {
            self.totals[bot].0 += outcome.score;
            self.totals[bot].1 += 1;
        }
    }

    pub(crate) fn leader(&self, bots: &[BotSpec]) -> String {
        let mean = |(total, games): (f64, u32)| total / games.max(1) as f64;
        self.totals
            .iter()
            .enumerate()
            .filter(|(_, t)| t.1 > 0)
            .max_by(|a, b| mean(*a.1).total_cmp(&mean(*b.1)))
            .map(|(bot, &t)| {
                let name = text::shown(&bots[bot].name);
                format!("leader: {name} ({:.1} a game)", mean(t))
            })
            .unwrap_or_default()
    }
}
