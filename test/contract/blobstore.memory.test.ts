import { MemoryBlobStore } from '../../libs/eventstore/src';
import { blobStoreContract } from './blobstore.contract';

blobStoreContract('memory', async () => ({ store: new MemoryBlobStore(), cleanup: async () => undefined }));
