package io.zkv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;

class ZkvExceptionTest {
  private static RocksDBException rocks(Status.Code code, Status.SubCode sub, String state) {
    return new RocksDBException(state, new Status(code, sub, state));
  }

  @Test
  void noSpaceIsTypedAlsoWhereRocksDbDropsTheSubcode() {
    ZkvException subcode =
        ZkvException.of(
            "put in /d",
            rocks(Status.Code.IOError, Status.SubCode.NoSpace, "sync: No space left on device"));
    assertInstanceOf(ZkvNoSpaceException.class, subcode);
    // DBImpl::CloseHelper rebuilds the WAL close error as a plain IOError around the text
    RocksDBException close =
        rocks(
            Status.Code.IOError,
            Status.SubCode.None,
            "Close of log file failed with error:close: No space left on device (ENOSPC): no space"
                + " left for data on the device, even after garbage collection");
    ZkvException e = ZkvException.of("close /d", close);
    assertInstanceOf(ZkvNoSpaceException.class, e);
    assertEquals(Status.Code.IOError, e.rocksCode().orElseThrow());
    assertSame(close, e.getCause());
    // DBImpl::DelayWrite: a writer stalled when the NoSpace background error arrives
    ZkvException stalled =
        ZkvException.of(
            "put in /d",
            rocks(
                Status.Code.Incomplete,
                Status.SubCode.None,
                "IO error: No space left on device: sync: No space left on device (ENOSPC): no"
                    + " space left for data on the device, even after garbage collection"));
    assertInstanceOf(ZkvNoSpaceException.class, stalled);
    assertEquals(Status.Code.Incomplete, stalled.rocksCode().orElseThrow());
    ZkvException io =
        ZkvException.of(
            "get",
            rocks(Status.Code.IOError, Status.SubCode.None, "read: Input/output error (EIO)"));
    assertEquals(ZkvException.class, io.getClass());
    assertInstanceOf(
        ZkvCorruptionException.class,
        ZkvException.of("get", rocks(Status.Code.Corruption, Status.SubCode.None, "bad block")));
  }
}
