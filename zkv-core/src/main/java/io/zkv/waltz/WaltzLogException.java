package io.zkv.waltz;

/** The log could not make a write durable (no zone to lease, a device error): with its -errno. */
public final class WaltzLogException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Linux's ENOSPC, as the native calls return it negated. */
  public static final int ENOSPC = 28;

  private final int errno;

  public WaltzLogException(String message, int errno) {
    super(message + (errno != 0 ? " (error " + errno + ")" : ""));
    this.errno = errno;
  }

  /** The native call's error, negative; 0 if none. */
  public int errno() {
    return errno;
  }

  /** Whether the device had no zone left for the log. */
  public boolean noSpace() {
    return errno == -ENOSPC;
  }
}
