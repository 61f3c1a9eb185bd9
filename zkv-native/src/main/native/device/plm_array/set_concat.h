/* The NVM Sets of a PLM drive whose sets are namespaces, one device each, concatenated into one
 * zoned device for the plmarray: (docs/plm.md, "Opening one"): member i (0-based, in the order
 * the URI lists them) holds zones [first_zone, first_zone + nr_zones) and stands for the array's
 * NVM Set i + 1. Admin commands go to the first member's controller with the array's set
 * numbers translated to the namespaces' own NVM Set Identifiers. */
#ifndef ZKV_SET_CONCAT_H
#define ZKV_SET_CONCAT_H
#include "common/backend.h"

/* `list`: device URIs separated by commas (nvme: namespaces; emu: devices for tests). */
zkv_dev *set_concat_open(const char *list, int *err);
/* Whether `dev` is a concatenation. */
int set_concat_is(const zkv_dev *dev);
/* Members; member i's zones; whether the controller advertises PLM (Identify Controller CTRATT
 * bit 5) and NVM Sets (bit 2). */
uint32_t set_concat_members(const zkv_dev *dev);
int set_concat_member(const zkv_dev *dev, uint32_t i, uint32_t *first_zone, uint32_t *nr_zones);
int set_concat_plm(const zkv_dev *dev);
/* The PLM commands' NVM Set numbers between the array's (member order, 1-based) and the drive's
 * (nvm_set[i] for member i; 0: unchanged): to the drive, Features 13h/14h (CDW11 15:00) and log
 * page 0Ah (LSI, CDW11 31:16); from the drive, the entries of log page 0Bh. */
void set_concat_to_drive(const uint16_t *nvm_set, uint32_t n, zkv_admin_cmd *cmd);
void set_concat_from_drive(const uint16_t *nvm_set, uint32_t n, zkv_admin_cmd *cmd);
extern const zkv_backend zkv_set_concat_backend;
#endif
