import { reportLine } from "./format";

export interface Step {
  name: string;
  ms: number;
}

/** Collects step durations; `now` is injectable for tests. */
export class Timer {
  private readonly steps: Step[] = [];
  private current: { name: string; start: number } | null = null;

  constructor(private readonly now: () => number = () => Date.now()) {}

  start(name: string): void {
    this.stop();
    this.current = { name, start: this.now() };
  }

  stop(): void {
    if (this.current) {
      this.steps.push({ name: this.current.name, ms: this.now() - this.current.start });
      this.current = null;
    }
  }

  report(): string {
    this.stop();
    const total = this.steps.reduce((sum, s) => sum + s.ms, 0);
    return [...this.steps.map((s) => reportLine(s.name, s.ms)), reportLine("total", total)].join("\n");
  }
}
