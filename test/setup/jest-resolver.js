// Jest resolves `require` with the CommonJS conditions; a package that exports only under `import`
// (the Octokit packages, docs/decisions.md D80) is then not found. Only when that default resolution
// fails is the request resolved again with `import` added, so dual packages keep their CommonJS build.
module.exports = (request, options) => {
  try {
    return options.defaultResolver(request, options);
  } catch (err) {
    const conditions = options.conditions ?? ['require', 'default'];
    if (conditions.includes('import')) throw err;
    return options.defaultResolver(request, { ...options, conditions: [...conditions, 'import'] });
  }
};
