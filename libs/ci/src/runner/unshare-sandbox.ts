import type { CheckNetwork } from './sandbox';

/**
 * The sandbox where bubblewrap is missing (docs/decisions.md D59), from what every Debian system has:
 * util-linux's `unshare` makes the namespaces (mount, PID, IPC, UTS, cgroup, network unless the
 * network is `host`; a user namespace too when the server is not root), and this script, run as the
 * namespaces' root, replays the same mount plan bubblewrap is given (sandbox.ts `mountPlan`) on an
 * empty tmpfs, switches to it with `pivot_root`, and starts the check, dropped to its uid with no
 * capabilities and `no_new_privs`. It stays as the namespace's first process, like bwrap's: when it
 * ends, the kernel kills every process left in the PID namespace, and `--kill-child` ends it when
 * `unshare` (and so the runner) dies.
 *
 * Arguments: the empty directory to build the root in, the network setting, the plan's steps, `--`,
 * then the argv to run. Only the steps mountPlan emits are known; any other stops the sandbox before
 * the command starts (an infrastructure error, never a check failing).
 */
const SETUP = `set -eu
root=$1; net=$2; shift 2
mount -t tmpfs -o mode=0755,nosuid,nodev railyard-root "$root"
perms=; workdir=/
made_dir() { [ -d "$1" ] || { mkdir -p "$1"; chmod "\${perms:-0755}" "$1"; }; perms=; }
while [ "$1" != -- ]; do
  step=$1; shift
  case $step in
    --ro-bind|--bind)
      src=$1; dst=$root$2; shift 2
      if [ -d "$src" ]; then mkdir -p "$dst"; elif [ ! -e "$dst" ]; then mkdir -p "\${dst%/*}"; : > "$dst"; fi
      mount --bind "$src" "$dst"
      if [ "$step" = --ro-bind ]; then mount -o remount,bind,ro,nosuid,nodev "$dst"; else mount -o remount,bind,nosuid,nodev "$dst"; fi ;;
    --symlink) mkdir -p "$(dirname "$root$2")"; ln -s "$1" "$root$2"; shift 2 ;;
    --dir) made_dir "$root$1"; shift ;;
    --perms) perms=$1; shift ;;
    --tmpfs) mkdir -p "$root$1"; mount -t tmpfs -o "mode=\${perms:-0755},nosuid,nodev" railyard-tmpfs "$root$1"; perms=; shift ;;
    --proc) mkdir -p "$root$1"; mount -t proc -o nosuid,nodev,noexec proc "$root$1"; shift ;;
    --dev)
      d=$root$1; shift
      mkdir -p "$d"; mount -t tmpfs -o mode=0755,nosuid railyard-dev "$d"
      for n in null zero full random urandom tty; do : > "$d/$n"; mount --bind "/dev/$n" "$d/$n"; done
      ln -s /proc/self/fd "$d/fd"; ln -s /proc/self/fd/0 "$d/stdin"; ln -s /proc/self/fd/1 "$d/stdout"; ln -s /proc/self/fd/2 "$d/stderr"
      mkdir "$d/pts"; mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$d/pts"; ln -s pts/ptmx "$d/ptmx" ;;
    --chdir) workdir=$1; shift ;;
    *) echo "railyard sandbox: unknown step $step" >&2; exit 125 ;;
  esac
done
shift
if [ "$net" = none ]; then ip link set lo up; fi
hostname railyard-ci 2>/dev/null || true
cd "$root"; mkdir .railyard-old; pivot_root . .railyard-old; umount -l /.railyard-old; rmdir /.railyard-old
cd "$workdir"
"$@" &
child=$!
exec 3>&- 4>&-
wait "$child"
`;

/**
 * The argv of one check in the unshare sandbox: `plan` is mountPlan's, `drop` how the check leaves
 * the namespaces' root (setpriv to its uid, or a user namespace of its own mapping the server's uid).
 */
export const unshareArgv = (
  opts: { network: CheckNetwork },
  rootDir: string,
  plan: readonly string[],
  asRoot: boolean,
  drop: readonly string[],
  inner: readonly string[],
): string[] => [
  'unshare',
  ...(asRoot ? [] : ['--user', '--map-root-user']),
  '--mount',
  '--pid',
  '--ipc',
  '--uts',
  '--cgroup',
  ...(opts.network === 'none' ? ['--net'] : []),
  '--fork',
  '--kill-child',
  '--propagation',
  'private',
  '--',
  'bash',
  '-c',
  SETUP,
  'railyard-sandbox',
  rootDir,
  opts.network,
  ...plan,
  '--',
  ...drop,
  ...inner,
];

/**
 * Without root, the namespaces' root is the server's uid mapped to 0; the check then gets a user
 * namespace of its own in which it is the server's uid again, with no capabilities (as under bwrap).
 */
export const unprivilegedDrop = (uid: number, gid: number): string[] => [
  'unshare',
  '--user',
  `--map-user=${uid}`,
  `--map-group=${gid}`,
  '--',
  'setpriv',
  '--no-new-privs',
  '--',
];
