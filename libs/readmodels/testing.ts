// The test builders' entry point, `@railyard/readmodels/testing`: kept apart from the package barrel so
// production code that imports the read models does not load them (docs/architecture.md, "Read models").
export * from './src/testing';
