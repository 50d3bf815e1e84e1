export const NO_STANDARDS = {
    label: "",
    answer() { },
    eventData() { },
    valid() { },
    invalid() { },
};
//# sourceMappingURL=checks.js.map