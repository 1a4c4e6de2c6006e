import { randomInt } from 'node:crypto';

/** One element of `array`, at random. */
export function pick<T>(array: readonly T[]): T {
  return array[randomInt(array.length)]!;
}

/** `n` distinct elements of `array`, at random (`array` must hold at least `n` distinct ones). */
export function pickDistinct<T>(array: readonly T[], n: number): T[] {
  const chosen = new Set<T>();
  while (chosen.size < n) chosen.add(pick(array));
  return [...chosen];
}

/** Shuffles `array` in place (Fisher–Yates) and returns it. */
export function shuffle<T>(array: T[]): T[] {
  for (let i = array.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [array[i], array[j]] = [array[j]!, array[i]!];
  }
  return array;
}
