/**
 * Which commit's repository configuration (`.railyard.yml`, `.trunk/trunk.yaml`: the local CI's
 * checks, their reports, the required statuses) gates a change: the target-branch commit the change
 * is tested on, never the tree under test (docs/decisions.md D200). A PR that changes those files is
 * judged by its base's configuration; its change takes effect once it has merged. A run is built on
 * `baseSha`; a direct merge lands on the target's head, which is then its base.
 */
export const gatingConfigCommit = (on: { baseSha: string }): string => on.baseSha;
