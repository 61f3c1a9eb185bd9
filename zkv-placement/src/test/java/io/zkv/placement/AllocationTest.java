package io.zkv.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class AllocationTest {

  @Test
  void decisionsNameTheirZoneAndFreezeTheFinishList() {
    List<Integer> finish = new ArrayList<>(List.of(4, 2));
    Allocation open =
        new Allocation.OpenEmptyZone(7, WriteLifetime.LONG, OptionalInt.of(3), finish, "r");
    finish.add(9);
    assertEquals(List.of(4, 2), open.finishFirst());
    assertEquals(OptionalInt.of(7), open.zone());
    assertThrows(UnsupportedOperationException.class, () -> open.finishFirst().add(1));
    assertEquals(OptionalInt.of(5), new Allocation.UseZone(5, List.of(), "r").zone());
    assertEquals(OptionalInt.empty(), new Allocation.NoSpace(List.of(1), "r").zone());
    assertEquals(OptionalInt.empty(), new Allocation.NeedGc(List.of(), "r").zone());
    assertEquals(
        OptionalInt.empty(),
        new Allocation.Wait(Allocation.Resource.OPEN_TOKEN, List.of(), "r").zone());
  }

  @Test
  void inconsistentDecisionsAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> new Allocation.UseZone(-1, List.of(), "r"));
    assertThrows(IllegalArgumentException.class, () -> new Allocation.UseZone(3, List.of(3), "r"));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new Allocation.OpenEmptyZone(
                3, WriteLifetime.LONG, OptionalInt.empty(), List.of(3), "r"));
    assertThrows(IllegalArgumentException.class, () -> new Allocation.NoSpace(List.of(1, 1), "r"));
    assertThrows(IllegalArgumentException.class, () -> new Allocation.NeedGc(List.of(-2), "r"));
    assertThrows(NullPointerException.class, () -> new Allocation.Wait(null, List.of(), "r"));
    assertThrows(NullPointerException.class, () -> new Allocation.NeedGc(List.of(), null));
  }
}
