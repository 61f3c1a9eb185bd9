/**
 * zkv's public API: {@link io.zkv.ZonedEnv} (zkv's zone file system on a zoned device, as a RocksDB
 * Env shared by many databases), {@link io.zkv.ZkvDb} (a key-value database on it), {@link
 * io.zkv.ZkvOptions}, and the unchecked exception family rooted at {@link io.zkv.ZkvException}.
 *
 * <p><b>Exceptions, one rule across the layers.</b>
 *
 * <ul>
 *   <li>This facade ({@code ZonedEnv}, {@code ZkvDb}, {@code ZkvIterator}, {@code ZkvBatch}) throws
 *       only unchecked exceptions. A failure of the device, the zone file system or RocksDB is a
 *       {@link io.zkv.ZkvException} (typed where a caller can act on it: {@link
 *       io.zkv.ZkvNoSpaceException}, {@link io.zkv.ZkvCorruptionException}), with the underlying
 *       exception, checked or not, as its cause. Why unchecked: see {@link io.zkv.ZkvException}.
 *   <li>The low-level layer in zkv-native ({@code io.zkv.device} with {@code EmulatedDevice} and
 *       {@code ZonedDevice}, {@code io.zkv.fs}, {@code org.rocksdb.ZkvEnv}) is an I/O API and
 *       throws the checked {@link io.zkv.device.ZonedDeviceException} (an {@link
 *       java.io.IOException}) for a failure of the device or the file system.
 *   <li>In both layers, misuse is an unchecked standard exception: {@link
 *       java.lang.IllegalArgumentException} for a bad argument, {@link
 *       java.lang.NullPointerException} for a missing one, {@link java.lang.IllegalStateException}
 *       for a call in the wrong state. A closed facade object throws {@link
 *       io.zkv.ZkvClosedException}.
 *   <li>A native library that cannot load (another platform, an unsupported RocksJava release) is
 *       an {@link java.lang.IllegalStateException} from every entry point, facade or not, naming
 *       the cause ({@code docs/native-library.md}).
 * </ul>
 *
 * <p>A program that only uses the facade therefore handles no checked exception: {@link
 * io.zkv.ZonedEnv#createEmulated} creates and formats an emulated device in one call, without
 * {@code EmulatedDevice.format}'s checked exception.
 */
package io.zkv;
