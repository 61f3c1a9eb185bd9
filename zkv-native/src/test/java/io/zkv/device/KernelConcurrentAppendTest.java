package io.zkv.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Concurrent zone appends on a real device ({@code -Dzkv.test.device}, either kernel backend):
 * threads appending to one zone, and one queue with 32 appends in flight. Logs the assigned LBAs
 * and how many completions came back out of submission order, and checks the LBAs are distinct and
 * contiguous and every block reads back intact.
 */
@Tag("guest")
@EnabledIfSystemProperty(named = KernelDevices.PROPERTY, matches = "(nvme|zbd):.+")
class KernelConcurrentAppendTest {
  private ZonedDevice dev;
  private int lba;

  @BeforeEach
  void open() throws Exception {
    dev = KernelDevices.openReset(KernelDevices.anyUri());
    lba = dev.geometry().lbaSize();
  }

  @AfterEach
  void close() {
    if (dev != null) {
      dev.close();
    }
  }

  /** A block naming its writer and sequence number. */
  private void block(ByteBuffer b, int writer, int seq) {
    b.clear();
    b.putInt(writer).putInt(seq);
    while (b.position() < lba) {
      b.put((byte) (writer * 31 + seq * 7 + b.position()));
    }
    b.flip();
  }

  /** Checks distinct, contiguous offsets from the zone start and the data of each block. */
  private void checkRange(int zone, long[] offsets, int[] writer, int[] seq) throws Exception {
    long start = dev.geometry().zoneStart(zone);
    int n = offsets.length;
    long[] sorted = offsets.clone();
    Arrays.sort(sorted);
    for (int i = 0; i < n; i++) {
      assertEquals(start + (long) i * lba, sorted[i], "LBAs are distinct and contiguous");
    }
    assertEquals(start + (long) n * lba, dev.zone(zone).writePointer());
    ByteBuffer all = ByteBuffer.allocateDirect(n * lba).order(ByteOrder.LITTLE_ENDIAN);
    dev.read(start, all);
    ByteBuffer want = ByteBuffer.allocateDirect(lba);
    for (int i = 0; i < n; i++) {
      int off = (int) (offsets[i] - start);
      block(want, writer[i], seq[i]);
      assertEquals(
          want,
          all.duplicate().position(off).limit(off + lba),
          "block of writer " + writer[i] + " seq " + seq[i] + " at LBA " + offsets[i] / lba);
    }
  }

  /** Positions in submission order whose LBA is lower than the previous submission's. */
  private static int descents(long[] bySubmission) {
    int d = 0;
    for (int i = 1; i < bySubmission.length; i++) {
      d += bySubmission[i] < bySubmission[i - 1] ? 1 : 0;
    }
    return d;
  }

  private String lbas(long[] offsets) {
    StringBuilder b = new StringBuilder();
    for (long o : offsets) {
      b.append(b.length() == 0 ? "" : " ").append(o / lba);
    }
    return b.toString();
  }

  @Test
  @Timeout(120)
  void threadsAppendingToOneZone() throws Exception {
    int threads = 8;
    int per = 32;
    int zone = 5;
    int n = threads * per;
    long[] offsets = new long[n]; // indexed by ticket: the order appends were issued in
    int[] writer = new int[n];
    int[] seq = new int[n];
    AtomicLong tickets = new AtomicLong();
    Appenders.run(
        threads,
        TimeUnit.SECONDS.toMillis(100),
        id -> {
          ByteBuffer b = ByteBuffer.allocateDirect(lba);
          for (int s = 0; s < per; s++) {
            block(b, id, s);
            int ticket = (int) tickets.getAndIncrement();
            writer[ticket] = id;
            seq[ticket] = s;
            offsets[ticket] = dev.append(zone, b);
          }
        });
    System.out.printf(
        "[%s] %d threads x %d appends to zone %d; LBAs in issue order: %s%n",
        dev.uri(), threads, per, zone, lbas(offsets));
    System.out.printf(
        "[%s] threads: %d of %d appends got a lower LBA than the append issued before them%n",
        dev.uri(), descents(offsets), n);
    checkRange(zone, offsets, writer, seq);
  }

  @Test
  @Timeout(120)
  void queueDepth32AppendsToOneZone() throws Exception {
    int qd = 32;
    int n = 256;
    int zone = 6;
    ByteBuffer src = ByteBuffer.allocateDirect(n * lba);
    ByteBuffer one = ByteBuffer.allocateDirect(lba);
    int[] writer = new int[n];
    int[] seq = new int[n];
    for (int i = 0; i < n; i++) {
      block(one, 100, i);
      src.put(i * lba, one, 0, lba);
      writer[i] = 100;
      seq[i] = i;
    }
    long[] offsets = new long[n]; // by submission (tag)
    Arrays.fill(offsets, -1);
    int[] completionOrder = new int[n];
    int done = 0;
    int next = 0;
    int maxInFlight = 0;
    try (AsyncQueue q = dev.newQueue(qd)) {
      Completions c = new Completions(qd);
      while (done < n) {
        while (next < n && q.submitAppend(zone, src, next * lba, lba, 0, next)) {
          next++;
        }
        maxInFlight = Math.max(maxInFlight, q.inFlight());
        int got = q.reap(c, 1, 30, TimeUnit.SECONDS);
        assertTrue(got > 0, "completions within 30 s");
        for (int i = 0; i < got; i++) {
          int tag = (int) c.tag(i);
          ZonedDeviceException error = c.error(i);
          assertTrue(c.ok(i), () -> "append " + tag + ": " + error);
          assertEquals(-1, offsets[tag], "tag completed twice");
          offsets[tag] = c.result(i);
          completionOrder[done++] = tag;
        }
      }
    }
    int late = 0;
    for (int i = 1; i < n; i++) {
      late += completionOrder[i] < completionOrder[i - 1] ? 1 : 0;
    }
    System.out.printf(
        "[%s] queue depth %d (max in flight %d), %d appends to zone %d; LBAs in submission order:"
            + " %s%n",
        dev.uri(), qd, maxInFlight, n, zone, lbas(offsets));
    System.out.printf(
        "[%s] queue: %d of %d completions came back out of submission order; %d LBAs lower than"
            + " the previous submission's%n",
        dev.uri(), late, n, descents(offsets));
    assertEquals(qd, maxInFlight, "the queue ran full");
    checkRange(zone, offsets, writer, seq);
  }
}
