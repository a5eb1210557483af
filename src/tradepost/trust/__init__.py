"""Trust: the verification of companies (documents, the operators' queue, the badge).

Reports, moderation and banned terms are to join it (docs/adr/0019-verification-documents.md).
"""
