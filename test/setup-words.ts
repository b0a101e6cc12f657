/**
 * The product's edges load the catalog of error words (src/words/errors.ts), which words a field
 * error's English `message`; the core tests read that message, so the catalog is loaded for them too.
 */
import '../src/words/errors.js';
