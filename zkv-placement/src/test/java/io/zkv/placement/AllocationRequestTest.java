package io.zkv.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class AllocationRequestTest {

  @Test
  void withChangesOneHintAndKeepsTheRest() {
    AllocationRequest r =
        AllocationRequest.builder(42, FileKind.SST)
            .lifetime(WriteLifetime.MEDIUM)
            .level(3)
            .jobId(7)
            .expectedSize(1 << 20)
            .keyRange(KeyRange.of(new byte[] {1}, new byte[] {2}))
            .compactionInputs(List.of(5L, 6L))
            .build();
    assertEquals(r, r.toBuilder().build());
    AllocationRequest longer = r.withLifetime(WriteLifetime.EXTREME);
    assertEquals(WriteLifetime.EXTREME, longer.lifetime());
    assertEquals(r.toBuilder().lifetime(WriteLifetime.EXTREME).build(), longer);
    assertEquals(r, longer.withLifetime(WriteLifetime.MEDIUM));
    AllocationRequest moved = r.withPurpose(AllocationPurpose.GC_MIGRATION);
    assertEquals(AllocationPurpose.GC_MIGRATION, moved.purpose());
    assertEquals(r, moved.withPurpose(AllocationPurpose.FILE_WRITE));
  }

  @Test
  void builderLeavesUnknownHintsEmpty() {
    AllocationRequest r = AllocationRequest.builder(4, FileKind.MANIFEST).build();
    assertEquals(4, r.fileId());
    assertEquals(FileKind.MANIFEST, r.kind());
    assertEquals(WriteLifetime.NOT_SET, r.lifetime());
    assertEquals(OptionalInt.empty(), r.level());
    assertEquals(OptionalInt.empty(), r.jobId());
    assertEquals(OptionalLong.empty(), r.expectedSize());
    assertEquals(Optional.empty(), r.keyRange());
    assertEquals(List.of(), r.compactionInputs());
    assertEquals(AllocationPurpose.FILE_WRITE, r.purpose());
  }

  @Test
  void carriesEveryHintCazaAndZoneKvNeed() {
    KeyRange range = KeyRange.of(new byte[] {1}, new byte[] {5});
    List<Long> inputs = new ArrayList<>(List.of(10L, 11L, 12L));
    AllocationRequest r =
        AllocationRequest.builder(42, FileKind.SST)
            .lifetime(WriteLifetime.LONG)
            .level(2)
            .jobId(17)
            .expectedSize(64L << 20)
            .keyRange(range)
            .compactionInputs(inputs)
            .build();
    inputs.add(13L);
    assertEquals(OptionalInt.of(2), r.level());
    assertEquals(OptionalInt.of(17), r.jobId());
    assertEquals(OptionalLong.of(64L << 20), r.expectedSize());
    assertEquals(Optional.of(range), r.keyRange());
    assertEquals(List.of(10L, 11L, 12L), r.compactionInputs());
    assertThrows(UnsupportedOperationException.class, () -> r.compactionInputs().add(1L));

    FileInfo info = FileInfo.of(r);
    assertEquals(42, info.fileId());
    assertEquals(FileKind.SST, info.kind());
    assertEquals(WriteLifetime.LONG, info.lifetime());
    assertEquals(OptionalInt.of(2), info.level());
    assertEquals(Optional.of(range), info.keyRange());
  }

  @Test
  void forFileDerivesTheKindFromTheName() {
    AllocationRequest r = AllocationRequest.forFile(3, "/db/000123.log", WriteLifetime.SHORT);
    assertEquals(FileKind.WAL, r.kind());
    assertEquals(WriteLifetime.SHORT, r.lifetime());
    assertEquals(AllocationPurpose.FILE_WRITE, r.purpose());
  }

  @Test
  void rejectsImpossibleHints() {
    assertMessage(
        assertThrows(
            IllegalArgumentException.class,
            () -> AllocationRequest.builder(-1, FileKind.SST).build()),
        "file id");
    assertMessage(
        assertThrows(
            IllegalArgumentException.class,
            () -> AllocationRequest.builder(1, FileKind.SST).level(-1).build()),
        "level");
    assertMessage(
        assertThrows(
            IllegalArgumentException.class,
            () -> AllocationRequest.builder(1, FileKind.SST).jobId(-3).build()),
        "job id");
    assertMessage(
        assertThrows(
            IllegalArgumentException.class,
            () -> AllocationRequest.builder(1, FileKind.SST).expectedSize(-5).build()),
        "expected size");
    assertThrows(
        NullPointerException.class,
        () -> AllocationRequest.builder(1, FileKind.SST).lifetime(null).build());
    assertThrows(NullPointerException.class, () -> AllocationRequest.builder(1, null).build());
    List<Long> withNull = new ArrayList<>();
    withNull.add(null);
    assertThrows(
        NullPointerException.class,
        () -> AllocationRequest.builder(1, FileKind.SST).compactionInputs(withNull).build());
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new FileInfo(
                1, FileKind.SST, WriteLifetime.LONG, OptionalInt.of(-1), Optional.empty()));
  }

  static void assertMessage(Throwable t, String part) {
    assertTrue(t.getMessage().contains(part), t.getMessage());
  }
}
