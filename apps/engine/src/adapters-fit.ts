import type { CiPort, CodeHost } from '@railyard/queue-driver';

// Compile-time proof that the adapters the engine is composed of fit the ports libs/queue-driver
// defines, so a composition can hand them to the engine as they are. The proof lives here, not beside
// the ports, because the port library depends on no adapter.
const _localHostFits: import('@railyard/githost').LocalCodeHost extends CodeHost ? true : never = true;
const _githubHostFits: import('@railyard/github').GithubCodeHost extends CodeHost ? true : never = true;
const _libsCiFits: import('@railyard/ci').LocalCi extends CiPort ? true : never = true;
const _githubCiFits: import('@railyard/github').GithubCi extends CiPort ? true : never = true;
