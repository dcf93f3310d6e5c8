export { parseCodeowners, ownersOf, normalizeRepoPath, type Codeowners, type CodeownersProblem, type CodeownersRule } from './codeowners';
