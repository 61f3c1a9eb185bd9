package io.zkv.kafka;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.apache.kafka.streams.errors.StreamsException;
import org.rocksdb.Env;
import org.rocksdb.Options;

/**
 * Puts an Env on the options Kafka Streams hands to a config setter.
 *
 * <p>Streams passes an adapter ({@code RocksDBGenericOptionsToDbOptionsColumnFamilyOptionsAdapter},
 * a subclass of {@link Options}) whose {@code setEnv} forwards to the {@code DBOptions} it opens
 * the database with. But Streams also lists the store's column families with {@code
 * RocksDB.listColumnFamilies(adapter, path)}, which reads the adapter's own native {@code Options}:
 * without the Env there, RocksDB looks on the host, finds nothing, and re-opening a timestamped
 * store fails with "Column families not opened: keyValueWithTimestamp" (4.1.x). So the Env also
 * goes to the adapter's own native options, through {@code Options.setEnv} itself (invoked
 * non-virtually on the adapter: RocksJava's public method, not the adapter's override).
 */
final class OptionsEnv {
  private static final ClassValue<MethodHandle> OPTIONS_SET_ENV =
      new ClassValue<>() {
        @Override
        protected MethodHandle computeValue(Class<?> type) {
          try {
            return MethodHandles.privateLookupIn(type, MethodHandles.lookup())
                .findSpecial(
                    Options.class, "setEnv", MethodType.methodType(Options.class, Env.class), type);
          } catch (ReflectiveOperationException | SecurityException | IllegalArgumentException e) {
            throw new StreamsException(
                "zkv cannot give the Env to the native options of "
                    + type.getName()
                    + " (Kafka Streams' options adapter): "
                    + e,
                e);
          }
        }
      };

  private OptionsEnv() {}

  /** Sets {@code env} on {@code options} and, for a subclass, on its own native options too. */
  static void set(Options options, Env env) {
    options.setEnv(env);
    if (options.getClass() == Options.class) {
      return;
    }
    try {
      Options unused = (Options) OPTIONS_SET_ENV.get(options.getClass()).invoke(options, env);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new StreamsException("zkv cannot give the Env to the store's options: " + e, e);
    }
  }
}
