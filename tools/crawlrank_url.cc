// placeholder: being written by the URL work
int main() { return 0; }
