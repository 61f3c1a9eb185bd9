/* The PLM array's admin commands: the PLM windows of each set, observed as the host asks for
 * them and enforced on the array's reads and writes (docs/plm.md). */
#define _GNU_SOURCE
#include "plm_array_internal.h"

/* ---------- admin: forwarded, with the windows observed ---------- */

static int is_window_request(const zkv_admin_cmd *cmd, int window) {
  return admin_sets_feature(cmd, 0x14) && (int)(cmd->cdw12 & 7) == window;
}

static int is_plm_config(const zkv_admin_cmd *cmd) { return admin_sets_feature(cmd, 0x13); }

/* The window a Set Features command puts its set in (PLM on starts in NDWIN), or -1. */
static int window_set_by(const zkv_admin_cmd *cmd) {
  if (admin_sets_feature(cmd, 0x14)) return (int)(cmd->cdw12 & 7);
  if (is_plm_config(cmd)) return (cmd->cdw12 & 1) ? WIN_NDWIN : WIN_PLM_OFF;
  return -1;
}

/* The window in a log page 0Ah (Status bits 2:0), or -1 for a code the spec does not define. */
int pa_window_in_log(const void *page) {
  int w = ((const uint8_t *)page)[0] & 7;
  return w <= WIN_NDWIN ? w : -1;
}

static int forward(pa_dev *a, zkv_admin_cmd *cmd) { return a->dead ? -ENODEV : zkv_dev_nvme_admin(a->inner, cmd); }

/* After a command succeeded: the window it set, or the one a log page shows (a DTWIN the device
 * ended on its own: its maximum, a full internal queue), becomes the set's; outside DTWIN its held
 * writes go to the device now. The window driver reads the log pages at its decisions. */
static int observe_window(pa_dev *a, pa_set *s, const zkv_admin_cmd *cmd) {
  int win = window_set_by(cmd);
  if (admin_is_log(cmd, 0x0A)) {
    uint32_t id = cmd->cdw11 >> 16;
    s = id >= 1 && id <= a->n + 1 ? &a->sets[id - 1] : NULL;
    if (s) win = pa_window_in_log(cmd->buf); /* -1: not a window the spec defines: keep the array's view */
    /* Read while this set's DTWIN request waits in the device (another thread), the page shows the
     * NDWIN that request is ending: the array's view (lockdown) stays. */
    if (s && win == WIN_NDWIN && s->win == WIN_ENTERING_DTWIN) win = -1;
  }
  if (!s || win < 0) return 0;
  lock(a);
  /* An NDWIN the host asked for (a window request, or PLM turned on), or one it finds in a log */
  s->host_nd = win == WIN_NDWIN && (cmd->opcode == NVME_ADMIN_SET_FEATURES || (s->win == WIN_NDWIN && s->host_nd));
  s->win = win;
  unlock(a);
  return win != WIN_DTWIN && s != &a->sets[0] ? pa_drain(a, s) : 0; /* NDWIN (or PLM off): held writes go now */
}

/* Leaving NDWIN: what this set holds must land before (the device's DTWIN is write-free). The
 * device completes the request after its NDWIN minimum and the lockdown: meanwhile other sets'
 * writes go on (the array's write lock is released), this set's are held and its reads rebuilt.
 * Called with wmu held; returns with it released. */
static int enter_dtwin(pa_dev *a, pa_set *s, zkv_admin_cmd *cmd) {
  int prev = s->win, prev_host_nd = s->host_nd;
  int rc = pa_drain(a, s);
  if (rc) {
    pthread_mutex_unlock(&a->wmu);
    return rc;
  }
  lock(a);
  s->win = WIN_ENTERING_DTWIN, s->host_nd = 0;
  unlock(a);
  pthread_mutex_unlock(&a->wmu);
  rc = forward(a, cmd);
  pthread_mutex_lock(&a->wmu);
  lock(a);
  if (s->win == WIN_ENTERING_DTWIN && rc) s->win = prev, s->host_nd = prev_host_nd;
  if (s->win == WIN_ENTERING_DTWIN) s->win = WIN_DTWIN; /* unless a write already ended it */
  unlock(a);
  if (rc && s->head) (void)pa_drain(a, s);
  pthread_mutex_unlock(&a->wmu);
  return rc;
}

/* Leaving DTWIN (an NDWIN request, or PLM turned on or off): reads stop going to the set before
 * the device can start its internal work, and those already on their way complete first
 * (Vigil-KV's UDT); marked only once the command had returned, a driver thread descheduled in
 * between let reads wait behind that work, and reads planned just before it did so anyway.
 * Returns the window to restore if the command fails. */
static int stop_reads_before_leaving(pa_dev *a, pa_set *s, const zkv_admin_cmd *cmd) {
  lock(a);
  int before = s->win;
  if (s->win == WIN_DTWIN) s->win = window_set_by(cmd) == WIN_PLM_OFF ? WIN_PLM_OFF : WIN_NDWIN;
  while (s->reads_out) pthread_cond_wait(&a->reads_done, &a->mu);
  unlock(a);
  return before;
}

/* The PLM admin commands, forwarded to the device with the array's view of each set's window
 * kept in step (docs/plm.md, "Window scheduling"). */
int pa_admin(zkv_dev *d, zkv_admin_cmd *cmd) {
  pa_dev *a = PA(d);
  uint32_t set = cmd->cdw11 & 0xFFFF;
  pa_set *s = set >= 1 && set <= a->n + 1 ? &a->sets[set - 1] : NULL, *kv = s && s != &a->sets[0] ? s : NULL;
  if (s == &a->sets[0] && is_plm_config(cmd) && window_set_by(cmd) == WIN_NDWIN) {
    zkv_set_error("NVM Set %u is the plmarray's meta set (WAL, metadata, journal): its PLM stays off", set);
    return -EINVAL;
  }
  pthread_mutex_lock(&a->wmu);
  if (kv && is_window_request(cmd, WIN_DTWIN)) {
    if (kv->win != WIN_DTWIN) return enter_dtwin(a, kv, cmd);
    int rc = pa_drain(a, kv); /* there already: nothing to wait for, forwarded as any other command */
    if (rc) {
      pthread_mutex_unlock(&a->wmu);
      return rc;
    }
  }
  int before =
      kv && (is_window_request(cmd, WIN_NDWIN) || is_plm_config(cmd)) ? stop_reads_before_leaving(a, kv, cmd) : -1;
  int rc = forward(a, cmd);
  if (rc && before >= 0) {
    lock(a);
    kv->win = before;
    unlock(a);
  }
  if (!rc) rc = observe_window(a, s, cmd); /* a log page names its set in the LSI, not here */
  pthread_mutex_unlock(&a->wmu);
  return rc;
}
