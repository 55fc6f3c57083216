import { createSlots } from '../../src/kernel/slots';

test('at most `size` holders at once; the others get a slot in arrival order as slots are released, each release counted once', async () => {
  const slots = createSlots(2);
  const order: number[] = [];
  const held = await Promise.all([slots.take(), slots.take()]);
  const waiting = [3, 4].map((n) =>
    slots.take().then((release) => {
      order.push(n);
      return release;
    }),
  );
  await new Promise((r) => setImmediate(r));
  expect(slots.usage()).toEqual({ held: 2, waiting: 2 });
  held[0]!();
  held[0]!(); // a second release of the same slot frees nothing more
  const third = await waiting[0]!;
  expect(order).toEqual([3]);
  expect(slots.usage()).toEqual({ held: 2, waiting: 1 });
  held[1]!();
  const fourth = await waiting[1]!;
  expect(order).toEqual([3, 4]);
  third();
  fourth();
  expect(slots.usage()).toEqual({ held: 0, waiting: 0 });
});
