package io.zkv.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class PolicyClassTest {
  /** A policy of a user's own: public, a public constructor without arguments. */
  public static class Mine implements VictimPolicy {
    @Override
    public String name() {
      return "mine";
    }

    @Override
    public OptionalInt chooseVictim(ZoneTableView zones) {
      return OptionalInt.empty();
    }
  }

  /** Needs an argument: zkv cannot make one. */
  public static final class NeedsArgument extends Mine {
    public NeedsArgument(int unused) {}
  }

  /** Throws in its constructor. */
  public static final class Throws extends Mine {
    public Throws() {
      throw new IllegalStateException("no configuration file");
    }
  }

  /** Abstract. */
  public abstract static class Unfinished implements VictimPolicy {}

  /** Not public. */
  static final class Hidden extends Mine {}

  private static String failure(String setting, Class<?> spi) {
    return assertThrows(IllegalArgumentException.class, () -> PolicyClass.instantiate(setting, spi))
        .getMessage();
  }

  @Test
  void makesANewInstanceOfTheNamedClassEachTime() {
    String setting = "class:" + Mine.class.getName();
    VictimPolicy a = PolicyClass.instantiate(setting, VictimPolicy.class);
    VictimPolicy b = PolicyClass.instantiate(" " + setting + " ", VictimPolicy.class);
    assertInstanceOf(Mine.class, a);
    assertNotSame(a, b);
    assertEquals(
        "liza",
        PolicyClass.instantiate("class:io.zkv.placement.LizaPolicy", PlacementPolicy.class).name());
  }

  @Test
  void recognisesClassSettingsOnly() {
    assertTrue(PolicyClass.isClassSetting("class:a.B"));
    assertTrue(PolicyClass.isClassSetting("  class:a.B"));
    assertFalse(PolicyClass.isClassSetting("liza"));
    assertFalse(PolicyClass.isClassSetting(null));
    assertTrue(failure("liza", PlacementPolicy.class).contains("does not name a class"));
    assertTrue(failure("class:  ", PlacementPolicy.class).contains("names no class"));
  }

  @Test
  void refusesEachWayAClassCannotServeWithTheReason() {
    assertTrue(
        failure("class:com.example.Missing", PlacementPolicy.class)
            .contains("PlacementPolicy class com.example.Missing is not on the class path"));
    assertTrue(
        failure("class:java.lang.String", PlacementPolicy.class)
            .contains("does not implement io.zkv.placement.PlacementPolicy"));
    assertTrue(
        failure("class:" + Unfinished.class.getName(), VictimPolicy.class).contains("is abstract"));
    assertTrue(
        failure("class:" + VictimPolicy.class.getName(), VictimPolicy.class)
            .contains("is abstract"));
    assertTrue(
        failure("class:" + Hidden.class.getName(), VictimPolicy.class).contains("not public"));
    assertTrue(
        failure("class:" + NeedsArgument.class.getName(), VictimPolicy.class)
            .contains("no public constructor without arguments"));
    IllegalArgumentException threw =
        assertThrows(
            IllegalArgumentException.class,
            () -> PolicyClass.instantiate("class:" + Throws.class.getName(), VictimPolicy.class));
    assertTrue(threw.getMessage().contains("its constructor threw"), threw.getMessage());
    assertTrue(threw.getMessage().contains("no configuration file"), threw.getMessage());
    assertInstanceOf(IllegalStateException.class, threw.getCause());
  }

  @Test
  void loadsThroughTheCallingThreadsContextClassLoader() {
    List<String> asked = new ArrayList<>();
    ClassLoader parent = PolicyClassTest.class.getClassLoader();
    ClassLoader recording =
        new ClassLoader("recording", parent) {
          @Override
          protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            asked.add(name);
            return super.loadClass(name, resolve);
          }
        };
    Thread t = Thread.currentThread();
    ClassLoader before = t.getContextClassLoader();
    t.setContextClassLoader(recording);
    try {
      PolicyClass.instantiate("class:" + Mine.class.getName(), VictimPolicy.class);
    } finally {
      t.setContextClassLoader(before);
    }
    assertTrue(asked.contains(Mine.class.getName()), asked.toString());
  }
}
