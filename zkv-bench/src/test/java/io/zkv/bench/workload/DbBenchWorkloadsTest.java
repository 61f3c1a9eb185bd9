package io.zkv.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DbBenchWorkloadsTest {
  private static final long NUM = 1_000_000;

  @Test
  void fillSeqWritesKeysInOrder() {
    OperationMix fill = DbBenchWorkloads.fillSeq(1000, 4000);
    SplittableRandom rng = new SplittableRandom(1);
    Operation op = new Operation();
    for (int i = 0; i < 1500; i++) {
      fill.next(rng, op);
      assertEquals(OpType.WRITE, op.type());
      assertEquals(i % 1000, op.key());
      assertEquals(4000, op.valueSize());
    }
  }

  @Test
  void fillRandomAndOverwriteWriteUniformKeys() {
    for (OperationMix mix :
        new OperationMix[] {
          DbBenchWorkloads.fillRandom(NUM, 100), DbBenchWorkloads.overwrite(NUM, 100)
        }) {
      long[] buckets = new long[50];
      SplittableRandom rng = new SplittableRandom(2);
      Operation op = new Operation();
      int ops = 200_000;
      for (int i = 0; i < ops; i++) {
        mix.next(rng, op);
        assertEquals(OpType.WRITE, op.type());
        assertEquals(100, op.valueSize());
        buckets[(int) (op.key() * 50 / NUM)]++;
      }
      double[] flat = new double[50];
      Arrays.fill(flat, 0.02);
      Stats.assertFits("random write keys", buckets, flat, ops);
    }
  }

  @Test
  void readRandomAndReadWhileWritingRoles() {
    DbBenchWorkloads.ReadWhileWriting rww = DbBenchWorkloads.readWhileWriting(NUM, 4000);
    SplittableRandom rng = new SplittableRandom(3);
    Operation op = new Operation();
    for (int i = 0; i < 10_000; i++) {
      rww.readers().next(rng, op);
      assertEquals(OpType.READ, op.type());
      assertTrue(op.key() >= 0 && op.key() < NUM);
      rww.writer().next(rng, op);
      assertEquals(OpType.WRITE, op.type());
      DbBenchWorkloads.readRandom(NUM).next(rng, op);
      assertEquals(OpType.READ, op.type());
    }
  }

  @Test
  void waltzWriteReadRatiosWithinOnePercent() {
    KeyGenerator uniform = new UniformKeyGenerator(NUM);
    int ops = 100_000;
    for (int writePercent : new int[] {100, 70, 30, 0}) {
      OperationMix mix = DbBenchWorkloads.writeReadMix(writePercent, uniform, 4000);
      SplittableRandom rng = new SplittableRandom(4);
      Operation op = new Operation();
      long writes = 0;
      for (int i = 0; i < ops; i++) {
        mix.next(rng, op);
        if (op.type() == OpType.WRITE) {
          writes++;
          assertEquals(4000, op.valueSize());
        } else {
          assertEquals(OpType.READ, op.type());
          assertEquals(0, op.valueSize());
        }
      }
      assertEquals(writePercent / 100.0, writes / (double) ops, 0.01, writePercent + "% writes");
      if (writePercent == 100 || writePercent == 0) {
        assertEquals(writePercent / 100.0, writes / (double) ops);
      }
    }
    assertThrows(
        IllegalArgumentException.class, () -> DbBenchWorkloads.writeReadMix(101, uniform, 1));
  }

  @Test
  void waltzZipfianHasTheZipfProfileSpreadOverTheKeys() {
    int n = 100_000;
    KeyGenerator zipf = DbBenchWorkloads.waltzZipfian(n, 1);
    OperationMix mix = DbBenchWorkloads.writeReadMix(70, zipf, 4000);
    long[] c = new long[n];
    int ops = 300_000;
    SplittableRandom rng = new SplittableRandom(5);
    Operation op = new Operation();
    for (int i = 0; i < ops; i++) {
      mix.next(rng, op);
      c[(int) op.key()]++;
    }
    long[] sorted = c.clone();
    Arrays.sort(sorted);
    long hottest = sorted[n - 1];
    double zetan = Stats.zetaDirect(n, 0.99);
    Stats.assertFrequency("hottest key", hottest, ops, 1 / zetan, 4, 0);
    Stats.assertFrequency("second key", sorted[n - 2], ops, Math.pow(2, -0.99) / zetan, 4, 0);
    long hotKey = ((ScrambledZipfianGenerator) zipf).keyOfRank(0);
    assertEquals(hottest, c[(int) hotKey]);
    assertTrue(hotKey > 0, "the hottest key is not key 0");
  }
}
