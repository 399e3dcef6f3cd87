// Test fixture CPU job for the piscina pool: a pure function of its input.
export default function sumSquares(input: { n: number }): number {
  let s = 0;
  for (let i = 1; i <= input.n; i++) s += i * i;
  return s;
}
