// How much of the machine was ours. The bench shares a 2-core box with whatever else runs (test
// suites, compilers); CPU taken by others during a measurement lowers every figure. This meter
// reads /proc/stat (all CPU) and /proc/<pid>/stat (our processes) at start and end, so the report
// can say how many cores other processes used meanwhile.

import { readFileSync } from 'node:fs';
import os from 'node:os';

interface Sample {
  at: number;
  /** Busy jiffies of the whole machine. */
  machine: number;
  /** Busy jiffies of the given processes. */
  ours: number;
}

export interface MachineUsage {
  cores: number;
  /** Average cores in use by our processes (bench, nats-server, services, gateway, baseline). */
  oursCores: number;
  /** Average cores in use by everything else. */
  othersCores: number;
}

const HZ = 100; // USER_HZ on Linux; /proc reports jiffies in it

function machineBusy(): number {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = cpu as [number, number, number, number, number, number, number, number];
  void idle;
  void iowait;
  return user + nice + system + irq + softirq + steal;
}

function processBusy(pid: number): number {
  try {
    // Fields after the command name (which may contain spaces) start at field 3.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]); // utime, stime
  } catch {
    return 0;
  }
}

/** CPU time (ms) each group of processes has used so far; subtract two readings for an interval. */
export function cpuByRole<R extends string>(roles: Record<R, number[]>): Record<R, number> {
  const out = {} as Record<R, number>;
  for (const role of Object.keys(roles) as R[]) out[role] = (roles[role].reduce((a, p) => a + processBusy(p), 0) * 1000) / HZ;
  return out;
}

export class MachineMeter {
  private start: Sample;

  constructor(private readonly pids: () => number[]) {
    this.start = this.sample();
  }

  private sample(): Sample {
    return { at: performance.now(), machine: machineBusy(), ours: this.pids().reduce((a, p) => a + processBusy(p), 0) };
  }

  /** Usage since construction (or the last reset). */
  usage(): MachineUsage {
    const end = this.sample();
    const seconds = (end.at - this.start.at) / 1000;
    const machine = (end.machine - this.start.machine) / HZ / seconds;
    const ours = (end.ours - this.start.ours) / HZ / seconds;
    return { cores: os.cpus().length, oursCores: ours, othersCores: Math.max(0, machine - ours) };
  }

  reset(): void {
    this.start = this.sample();
  }
}
