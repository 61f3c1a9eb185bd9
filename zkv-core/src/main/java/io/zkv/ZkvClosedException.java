package io.zkv;

/** A {@link ZkvDb}, {@link ZkvIterator} or {@link ZonedEnv} was used after it was closed. */
public class ZkvClosedException extends ZkvException {
  private static final long serialVersionUID = 1L;

  public ZkvClosedException(String message) {
    super(message);
  }
}
