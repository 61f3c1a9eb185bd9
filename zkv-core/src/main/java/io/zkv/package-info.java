/**
 * zkv's public API: {@link io.zkv.ZonedEnv} (zkv's zone file system on a zoned device, as a RocksDB
 * Env shared by many databases), {@link io.zkv.ZkvDb} (a key-value database on it), {@link
 * io.zkv.ZkvOptions}, and the unchecked exception family rooted at {@link io.zkv.ZkvException}.
 */
package io.zkv;
