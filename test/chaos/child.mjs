/**
 * A chaos run's child: runner.mjs forked in a process group of its own, given one job at a time
 * over IPC, SIGKILLed (the whole group) by the run's killer or by an armed crash point. One class
 * for harness.mjs (one machine) and machines.mjs (several).
 */
import { fork } from 'node:child_process';

const RUNNER = new URL('./runner.mjs', import.meta.url).pathname;
const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

export class Child {
  /**
   * `run`: what the run shares with its children: `env` (the runner's environment), `children`
   * (the live ones, for the killer) and `stopping()` (true once the last kill was dealt: no child
   * starts after it, it would outlive the run). `stderrTail`: keep the last 4,000 characters of the
   * runner's stderr in `stderr` (else it is not read).
   */
  constructor(name, run, { stderrTail = false } = {}) {
    this.name = name;
    this.run_ = run;
    this.stderrTail = stderrTail;
    this.proc = undefined;
    this.pending = undefined;
    this.seq = 0;
    this.killedByKiller = false;
    this.stderr = '';
    this.spared = false;
  }

  async start() {
    this.killedByKiller = false;
    const proc = fork(RUNNER, [], { detached: true, stdio: ['ignore', 'ignore', this.stderrTail ? 'pipe' : 'ignore', 'ipc'], env: this.run_.env });
    this.proc = proc;
    proc.on('error', () => { /* a send to a killed child: its 'exit' follows */ });
    if (this.stderrTail) proc.stderr.setEncoding('utf8').on('data', (s) => { this.stderr = (this.stderr + s).slice(-4000); });
    const ready = new Promise((res) => {
      proc.on('message', (m) => {
        if (m.ready) res(true);
        else if (this.pending && m.seq === this.pending.seq) { const p = this.pending; this.pending = undefined; p.resolve({ ...m, dead: false }); }
      });
      proc.on('exit', (code, signal) => {
        this.run_.children.delete(this);
        this.proc = undefined;
        res(false);
        if (this.pending) { const p = this.pending; this.pending = undefined; p.resolve({ dead: true, code, signal, byKiller: this.killedByKiller }); }
      });
    });
    this.run_.children.add(this);
    return ready;
  }

  /** Run one job; resolves with the reply, or {dead: true, signal, byKiller} when the child died. */
  async run(job) {
    while (!this.proc) {
      if (this.run_.stopping()) return { dead: true, code: null, signal: null, byKiller: true };
      if (!(await this.start())) await sleep(10);
    }
    const seq = ++this.seq;
    return new Promise((resolve) => {
      this.pending = { seq, resolve };
      // a child that died meanwhile: its 'exit' resolves the job, the send error is expected
      try { this.proc.send({ ...job, seq }, () => {}); } catch { /* idem */ }
    });
  }

  /** SIGKILL the child's process group (`byKiller`: what its pending job's reply says killed it). */
  kill(byKiller) {
    if (!this.proc) return false;
    this.killedByKiller = byKiller;
    try { process.kill(-this.proc.pid, 'SIGKILL'); } catch { try { this.proc.kill('SIGKILL'); } catch { /* gone */ } }
    return true;
  }
}
