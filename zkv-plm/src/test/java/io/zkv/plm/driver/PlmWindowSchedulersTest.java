package io.zkv.plm.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.zkv.device.plm.WindowSchedulerProvider;
import io.zkv.plm.window.BaseScheduler;
import io.zkv.plm.window.WindowScheduler;
import org.junit.jupiter.api.Test;

/** zkv-plm's schedulers are what a ZonedEnv finds on the class path (META-INF/services). */
class PlmWindowSchedulersTest {
  @Test
  void theServiceLoaderFindsTheSchedulersByName() {
    WindowSchedulerProvider p = WindowSchedulerProvider.forName("o-vigil");
    assertTrue(p instanceof PlmWindowSchedulers, p.getClass().getName());
    assertEquals(WindowSchedulers.NAMES, p.names());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> WindowSchedulerProvider.forName("silk"));
    assertTrue(
        e.getMessage().contains("unknown window scheduler 'silk' (known: base, plm"),
        e.getMessage());
  }

  @Test
  void aSchedulerOfOnesOwnIsNamedByItsClassAndMadeAnewEachTime() {
    String mine = "class:" + BaseScheduler.class.getName();
    WindowSchedulerProvider.forName(mine); // checks it loads and implements WindowScheduler
    WindowScheduler a = WindowSchedulers.create(mine, 1 << 20);
    WindowScheduler b = WindowSchedulers.create(mine, 1 << 20);
    assertTrue(a instanceof BaseScheduler, a.getClass().getName());
    assertNotSame(a, b, "schedulers keep state: one per device");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> WindowSchedulerProvider.forName("class:java.lang.String"));
    assertTrue(
        e.getMessage().contains("does not implement io.zkv.plm.window.WindowScheduler"),
        e.getMessage());
  }
}
