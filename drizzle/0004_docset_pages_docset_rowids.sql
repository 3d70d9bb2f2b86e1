-- Custom SQL migration file, put your code below! --
-- Docset page rowids carry the docset (issue 5, hosted search_docs benchmark): rowid = docset_id * 2^32 +
-- page id. A docset is then one rowid range that FTS5 filters inside its index (`rowid BETWEEN`), so a search
-- costs what the docset's own matches cost, not every workspace's (with the external-content table keyed by
-- page id, a common word walked and joined every tenant's pages: ~70 ms at 20,000 pages). The index keeps its
-- own copy of path, title and content (an external-content table must share the content table's rowid).
-- Rowids stay below 2^53 for docset ids under 2^21.
DROP TRIGGER IF EXISTS `docset_pages_fts_insert`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `docset_pages_fts_update`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `docset_pages_fts_delete`;
--> statement-breakpoint
DROP TABLE IF EXISTS `docset_pages_fts`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `docset_pages_fts` USING fts5(path, title, content, tokenize = 'unicode61 remove_diacritics 2');
--> statement-breakpoint
INSERT INTO docset_pages_fts(rowid, path, title, content)
  SELECT docset_id * 4294967296 + id, path, title, content FROM `docset_pages`;
--> statement-breakpoint
CREATE TRIGGER `docset_pages_fts_insert` AFTER INSERT ON `docset_pages` BEGIN
  INSERT INTO docset_pages_fts(rowid, path, title, content) VALUES (new.docset_id * 4294967296 + new.id, new.path, new.title, new.content);
END;
--> statement-breakpoint
CREATE TRIGGER `docset_pages_fts_update` AFTER UPDATE OF docset_id, path, title, content ON `docset_pages` BEGIN
  DELETE FROM docset_pages_fts WHERE rowid = old.docset_id * 4294967296 + old.id;
  INSERT INTO docset_pages_fts(rowid, path, title, content) VALUES (new.docset_id * 4294967296 + new.id, new.path, new.title, new.content);
END;
--> statement-breakpoint
CREATE TRIGGER `docset_pages_fts_delete` AFTER DELETE ON `docset_pages` BEGIN
  DELETE FROM docset_pages_fts WHERE rowid = old.docset_id * 4294967296 + old.id;
END;
