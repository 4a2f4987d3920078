import { open } from '../../src/index.js';
const db = open({ path: './data' });
db.close();
