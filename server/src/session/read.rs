//! `find` and `extract`: what the page holds, read from its analysis
//! without folding (matches, tables, lists, text, links), and the answer
//! every tool that does not show a view gives. Invariant: an answer's
//! envelope is about the active page, its `tree` the answer's lines.

use whittle_engine::{Envelope, Observation};

use super::{Fail, Session, ToolOutput, invalid_args};
use crate::backend::BrowseError;
use crate::tools::{ExtractArgs, FindArgs};

impl Session {
    pub(super) async fn find(&mut self, args: FindArgs) -> Result<ToolOutput, Fail> {
        let limit = args.limit.unwrap_or(20).clamp(1, 500) as usize;
        let tab = &mut self.tabs[self.active];
        let analysis = tab.page.analysis(&mut self.refs).await?;
        let found = whittle_engine::find::find(&analysis.document, &analysis.styles, &analysis.concealment, &analysis.semantics, &analysis.tree, &args.q, limit)
            .map_err(|e| invalid_args(e.to_string()))?;
        self.answer("find", found.text).await
    }

    pub(super) async fn extract(&mut self, args: ExtractArgs) -> Result<ToolOutput, Fail> {
        let scope = match args.ref_id {
            Some(r) => Some(self.node_of(r).await?),
            None => None,
        };
        let kind = match args.kind {
            crate::tools::ExtractKind::Table => whittle_engine::extract::ExtractKind::Table,
            crate::tools::ExtractKind::List => whittle_engine::extract::ExtractKind::List,
            crate::tools::ExtractKind::Text => whittle_engine::extract::ExtractKind::Text,
            crate::tools::ExtractKind::Links => whittle_engine::extract::ExtractKind::Links,
        };
        let tab = &mut self.tabs[self.active];
        let analysis = tab.page.analysis(&mut self.refs).await?;
        let extracted = whittle_engine::extract::extract(
            &analysis.document,
            &analysis.styles,
            &analysis.concealment,
            &analysis.semantics,
            &analysis.tree,
            kind,
            scope,
            args.offset.unwrap_or(0) as usize,
            args.links.unwrap_or(false),
            whittle_engine::extract::DEFAULT_PAGE_TOKENS,
        )
        .map_err(|e| BrowseError::new("not_found", e.to_string()))?;
        self.answer("extract", extracted.text).await
    }

    /// A result that is not an observation (find, extract, tabs, wait): the
    /// text, and an envelope about the active page whose `tree` holds the
    /// text's lines.
    pub(super) async fn answer(&mut self, tool: &str, text: String) -> Result<ToolOutput, Fail> {
        let ids = self.ids(tool);
        let tab = &mut self.tabs[self.active];
        let engine = tab.page.engine();
        let origin = tab.page.url().map(|u| u.origin().ascii_serialization());
        let envelope = match tab.page.analysis(&mut self.refs).await {
            Ok(analysis) => {
                let lines: Vec<String> = text.lines().map(str::to_owned).collect();
                let obs = Observation {
                    title: analysis.document.title(),
                    url: analysis.document.url().map(|u| u.to_string()).unwrap_or_default(),
                    header: String::new(),
                    notes: Vec::new(),
                    line_refs: vec![Default::default(); lines.len()],
                    lines,
                    widgets: Vec::new(),
                    tree_truncated: false,
                    marks_truncated: false,
                };
                Envelope::observation(ids, engine, &analysis.layout, &obs, &analysis.tree, origin)
            }
            // An empty tab: nothing of a page to describe.
            Err(_) => {
                let mut e = Envelope::error(ids, "", "");
                e.ok = true;
                e.server.error = None;
                e
            }
        };
        let mut text = text;
        if !text.ends_with('\n') {
            text.push('\n');
        }
        Ok(ToolOutput { text, envelope, image: None })
    }
}
