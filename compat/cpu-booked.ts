/**
 * CPU the gate's peer processes used, booked by what they ran for (a pass, the
 * decoder check): the run's cost line, so a maintainer sees what each part of
 * the gate costs in CPU-seconds, which a loaded machine changes far less than
 * wall time. One gate run per process; runGate starts it afresh.
 */
const booked = new Map<string, number>();

export function bookCpu(what: string, cpuMs: number): void {
  booked.set(what, (booked.get(what) ?? 0) + cpuMs);
}

export function cpuBooked(): ReadonlyMap<string, number> {
  return booked;
}

export function startCpuBooking(): void {
  booked.clear();
}
