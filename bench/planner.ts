export const run = async (): Promise<object[]> => [];
