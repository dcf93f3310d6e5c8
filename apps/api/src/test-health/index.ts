export { createTestHealth, openTestHealthStore, testHealthOperations, type TestHealth, type TestHealthOptions } from './create';
export { testHealthConfigOf, pageTokenSecretOf, type TestHealthConfig } from './config';
export { reportUploader, type RunnerReports, type UploadReports } from './report-uploader';
export { MAX_UPLOAD_BYTES, type UploadInput, type UploadSummary } from './recorder';
export { repoFactsOf } from './repo-facts';
