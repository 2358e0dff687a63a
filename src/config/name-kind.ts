/** What a name in the book names: a subaccount or a treasury account (its label). */
export type NameKind = 'subaccount' | 'treasury-account'
