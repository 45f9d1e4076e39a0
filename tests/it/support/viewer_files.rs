//! Small `results.json` files of the games whose viewers read them, as koth writes them: the
//! samples that reader tests damage.

/// Two games of noughts & crosses, each lost by Always Centre's answer on a taken square.
pub const TICTACTOE_RESULTS: &str = r#"{
  "result": {
    "game": "tictactoe",
    "seed": 5,
    "bots": [
      {"name": "Win or Block (Python)", "score": 2.0, "status": "finished", "faults": [],
       "fault_counts": {"bad_output": 0, "benched": 0, "crashed": 0, "failed_to_start": 0, "timed_out": 0},
       "timing": {"answers": 2, "max_wall_ms": 79.9, "near_misses": 0, "total_wall_ms": 80.0}},
      {"name": "Always Centre", "score": 0.0, "status": "bad_output",
       "faults": [{"bot": "Always Centre", "kind": "bad_output", "reason": "answered \"4\" as O: square 4 is taken on ....X....", "round": 1, "turn": 2}],
       "fault_counts": {"bad_output": 2, "benched": 0, "crashed": 0, "failed_to_start": 0, "timed_out": 0},
       "timing": {"answers": 2, "max_wall_ms": 0.1, "near_misses": 0, "total_wall_ms": 0.2}}
    ]
  },
  "games": [
    {"game": 1, "x": "Win or Block (Python)", "o": "Always Centre", "winner": "X", "moves": [4],
     "fault": "answered \"4\" as O: square 4 is taken on ....X...."},
    {"game": 2, "x": "Always Centre", "o": "Win or Block (Python)", "winner": "draw",
     "moves": [4, 0, 8, 2, 1, 7, 3, 5, 6]}
  ]
}"#;

/// A flag game of two levels, the first solved.
pub const FLAG_RESULTS: &str = r##"{
  "result": {
    "game": "flag",
    "seed": 0,
    "bots": [
      {"name": "DFS Solver", "score": 1.0, "status": "finished", "faults": [],
       "fault_counts": {"bad_output": 0, "benched": 0, "crashed": 0, "failed_to_start": 0, "timed_out": 0},
       "timing": {"answers": 2, "max_wall_ms": 158.8, "near_misses": 0, "total_wall_ms": 251.0}}
    ]
  },
  "levels": [
    {"level": "1-ring", "solved": true, "fitness": 13, "moves": "DURRDDLL", "flag_value": -3,
     "map": ["s11", "1.1", "F11"]},
    {"level": "2-dark-centre", "solved": false, "fitness": -12, "moves": "DU", "flag_value": -6,
     "map": ["s111", "1221", "1111", "#11F"]}
  ]
}"##;
