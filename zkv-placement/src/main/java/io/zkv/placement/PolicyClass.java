package io.zkv.placement;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.util.Objects;

/**
 * A policy named by its class, {@code class:com.example.MyPolicy}: how settings given as text (the
 * Kafka Streams config, {@code zkv bench}'s {@code placement=}, {@code victim=}, {@code trigger=},
 * {@code windows=}) take a policy of the user's own. The class is loaded by the calling thread's
 * context class loader (the application's class path in a plain program; {@code zkv bench} sets it
 * to its {@code --classpath}) and instantiated once, through its public constructor without
 * arguments. Everything that can go wrong is refused with the reason, never half-loaded.
 */
public final class PolicyClass {
  /** What a setting starts with to name a class instead of a built-in policy. */
  public static final String PREFIX = "class:";

  private PolicyClass() {}

  /** Whether {@code setting} names a class ({@code class:...}) rather than a built-in policy. */
  public static boolean isClassSetting(String setting) {
    return setting != null && setting.trim().startsWith(PREFIX);
  }

  /**
   * A new instance of the class {@code setting} names, checked to implement {@code spi}.
   *
   * @param setting {@code class:} and a binary class name, e.g. {@code class:com.example.MyPolicy}
   * @param spi the interface the class must implement, e.g. {@link PlacementPolicy}
   * @throws IllegalArgumentException if the setting names no class, the class is not found or
   *     cannot be loaded, does not implement {@code spi}, is abstract or not public, has no public
   *     constructor without arguments, or its constructor throws (the cause attached)
   */
  public static <T> T instantiate(String setting, Class<T> spi) {
    Objects.requireNonNull(spi, "spi");
    String name = className(setting);
    String what = spi.getSimpleName() + " class " + name;
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    if (loader == null) {
      loader = ClassLoader.getSystemClassLoader();
    }
    Class<?> c;
    try {
      c = Class.forName(name, true, loader);
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException(
          what
              + " is not on the class path (zkv bench: --classpath or ZKV_CLASSPATH; an"
              + " application: its own class path)",
          e);
    } catch (LinkageError e) {
      throw new IllegalArgumentException(what + " cannot be loaded: " + e, e);
    }
    if (!spi.isAssignableFrom(c)) {
      throw new IllegalArgumentException(what + " does not implement " + spi.getName());
    }
    if (c.isInterface() || Modifier.isAbstract(c.getModifiers())) {
      throw new IllegalArgumentException(what + " is abstract: name a concrete class");
    }
    if (!Modifier.isPublic(c.getModifiers())) {
      throw new IllegalArgumentException(what + " is not public");
    }
    Constructor<?> ctor;
    try {
      ctor = c.getConstructor();
    } catch (NoSuchMethodException e) {
      throw new IllegalArgumentException(
          what + " has no public constructor without arguments (zkv makes one instance with it)",
          e);
    }
    try {
      return spi.cast(ctor.newInstance());
    } catch (InvocationTargetException e) {
      throw new IllegalArgumentException(
          what + ": its constructor threw " + e.getCause(), e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(what + " cannot be instantiated: " + e, e);
    }
  }

  /** The class name of a {@code class:} setting. */
  private static String className(String setting) {
    if (!isClassSetting(setting)) {
      throw new IllegalArgumentException(
          "'" + setting + "' does not name a class (expected " + PREFIX + "com.example.MyPolicy)");
    }
    String name = setting.trim().substring(PREFIX.length()).trim();
    if (name.isEmpty()) {
      throw new IllegalArgumentException(
          "'" + setting + "' names no class (expected " + PREFIX + "com.example.MyPolicy)");
    }
    return name;
  }
}
