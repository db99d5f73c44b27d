// Kept apart from explore.tsx so `--help` does not load Ink and React.
export const EXPLORE_HELP = `Usage: deltalens [explore] [--db FILE] [--demo]
                          [--pair N | --trajectory N [--step K] | --question ID [--agent A] | --instance ID]

Open the keyboard-driven explorer. Press ? inside for every key.

Options:
  --db FILE   database (default ./deltalens.db if present, else the bundled demo database)
  --demo      open the bundled demo database (built on first use)
  --pair N    open the trace stepper on traced pair N (see deltalens traces)
  --trajectory N   open trajectory N; with --step K, on its step K (1-based)
  --question ID    open question ID with an agent's explanation (--agent A; default: the
                   first agent with one for that instance, its original explanation)
  --instance ID    open the instance's screen: its record, tests, runs, traced pairs, questions
  Esc walks back from a deep link as if you had walked there (list, leaderboard, pairs).
  --pass-env NAME  pass this environment variable into live re-runs (L in the stepper; repeatable)
  --no-sandbox     run live re-runs of patches unconfined (without bwrap they are refused
                   otherwise; the bundled demo's own pairs run without it anyway)
  --team URL       the team's PostgreSQL server (or $DELTALENS_TEAM): the team's labels,
                   adjudications, flags, reviews and stage corrections are brought in before
                   the explorer opens, and yours sent when it closes
  -h, --help  show this help

The explorer needs a terminal; in scripts use \`deltalens trajectories --json\`.`;
