/**
 * How a backtest asks the service for its monitors' answers (cli/backtest/run.ts, askInTurn): one at a time, in
 * the monitors' order, each once the one before is in, and never more than two ahead of the monitor being judged.
 * No server: each answer is a promise the test settles.
 */
import { askInTurn } from "../../cli/backtest/run";

/** Lets every settled promise's callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function answers(count: number) {
  const asked: number[] = [];
  const finish: ((ok: boolean) => void)[] = [];
  const asking = askInTurn(count, (i) => {
    asked.push(i);
    return {
      i,
      answer: new Promise<number>((resolve, reject) =>
        finish.push((ok) => (ok ? resolve(i) : reject(new Error(`answer ${i} failed`)))),
      ),
    };
  });
  return { asked, finish, asking };
}

describe("a backtest asks for its answers in turn", () => {
  it("asks for the next answer only once the one before is in", async () => {
    const { asked, finish, asking } = answers(4);
    const first = asking.take(0);
    await settle();
    expect(asked).toEqual([0]);
    finish[0](true);
    await settle();
    expect(asked).toEqual([0, 1]);
    expect((await first).i).toBe(0);
  });

  it("goes at most two answers ahead of the one taken last, and on as each is taken", async () => {
    const { asked, finish, asking } = answers(5);
    void asking.take(0);
    for (let i = 0; i < 3; i++) {
      await settle();
      finish[i]?.(true);
    }
    await settle();
    // Taken: 0. Asked: 0 and the two after it, the third after it held back.
    expect(asked).toEqual([0, 1, 2]);
    void asking.take(1);
    await settle();
    expect(asked).toEqual([0, 1, 2, 3]);
  });

  it("a failed answer is handed over in its turn, and the next is still asked for", async () => {
    const { asked, finish, asking } = answers(2);
    const first = asking.take(0);
    await settle();
    finish[0](false);
    await settle();
    expect(asked).toEqual([0, 1]);
    await expect((await first).answer).rejects.toThrow("answer 0 failed");
  });
});
