/**
 * Ctrl+C for a long command: the first press aborts `signal` — the job stops and keeps what it
 * has done, and `message` says so — a second exits at once (130). `on()` when the job starts,
 * `off()` when it ends.
 */
export function ctrlCStops(message: string): {signal: AbortSignal; on: () => void; off: () => void} {
  const controller = new AbortController();
  let presses = 0;
  const handler = () => {
    presses += 1;
    if (presses > 1) process.exit(130);
    process.stderr.write(`\n${message}\n`);
    controller.abort();
  };
  return {
    signal: controller.signal,
    on: () => process.on('SIGINT', handler),
    off: () => process.off('SIGINT', handler),
  };
}
