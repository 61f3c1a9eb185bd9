package io.zkv.device;

/** The host error numbers the native layer returns, with readable descriptions. */
enum Errno {
  EPERM(1, "operation not permitted"),
  ENOENT(2, "no such file"),
  EIO(5, "input/output error"),
  ENOMEM(12, "out of memory"),
  EACCES(13, "permission denied"),
  EBUSY(16, "device in use"),
  EEXIST(17, "already exists"),
  ENODEV(19, "device lost power or is gone; close and reopen it"),
  EINVAL(22, "invalid argument"),
  ENOSPC(28, "no space left"),
  EAGAIN(11, "try again"),
  E2BIG(7, "request too large for one submission"),
  EOPNOTSUPP(95, "operation not supported by this device"),
  OTHER(-1, "host error");

  private final int number;
  private final String description;

  Errno(int number, String description) {
    this.number = number;
    this.description = description;
  }

  int number() {
    return number;
  }

  String description() {
    return this == OTHER ? description : description + " (" + name() + ")";
  }

  static Errno of(int number) {
    for (Errno e : values()) {
      if (e.number == number) {
        return e;
      }
    }
    return OTHER;
  }
}
